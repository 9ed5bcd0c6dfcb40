// The latency-vs-connections panel: a percentile per (run, mode) at one rate, and its table.

import {
  type LoadResultsRun,
  linesByConnections,
  markedPercentile,
  type PreparedLines,
  percentileMs,
  pointsAtRate,
  valueAxis,
} from './load-results.ts';
import type { MarkedPercentile } from './percentile-accuracy.ts';

export interface LatencyRow {
  run: string;
  mode: string;
  connections: number;
  targetRps: number | null;
  achievedRps: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  /** The same percentiles as their cells show them (mark and bound). */
  marked: { p50: MarkedPercentile; p90: MarkedPercentile; p99: MarkedPercentile };
  requests: number | null;
}

export interface PreparedLatency {
  lines: PreparedLines | null;
  table: LatencyRow[];
  superseded: number;
}

export function prepareLatencyVsConnections(
  runs: LoadResultsRun[],
  rateKey: string | null,
  percentile: number,
): PreparedLatency {
  const { points, superseded } = pointsAtRate(runs, rateKey);
  const values = points.flatMap((point) => {
    const value = percentileMs(point.result, percentile);
    return value === null ? [] : [{ point, value }];
  });
  return {
    lines: linesByConnections(runs, values, valueAxis(values.map((v) => v.value))),
    table: points.map(({ run, result: r, connections }) => ({
      run: run.label,
      mode: r.mode,
      connections,
      targetRps: r.targetRps,
      achievedRps: r.achievedRps,
      p50: percentileMs(r, 50),
      p90: percentileMs(r, 90),
      p99: percentileMs(r, 99),
      marked: {
        p50: markedPercentile(r, 50),
        p90: markedPercentile(r, 90),
        p99: markedPercentile(r, 99),
      },
      requests: r.requests,
    })),
    superseded,
  };
}
