// The latency panel: a percentile per (run, mode) along connections at one rate, or along the
// rate achieved at one connection count, and its table.

import {
  type LoadResultsRun,
  linesBySlice,
  markedPercentile,
  type PreparedLines,
  percentileMs,
  pointsInSlice,
  type SliceArg,
  toSlice,
  valueAxis,
} from './load-results.ts';
import type { MarkedPercentile } from './percentile-accuracy.ts';

export interface LatencyRow {
  run: string;
  mode: string;
  connections: number;
  /** Where the point lies on the chart's x axis (its connections or its rate). */
  x: number;
  targetRps: number | null;
  achievedRps: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  /** The same percentiles as their cells show them (mark and bound). */
  marked: { p50: MarkedPercentile; p90: MarkedPercentile; p99: MarkedPercentile };
  requests: number | null;
  /** Every percentile the table shows, in its order, with its mark and bound. */
  percentiles: { p: number; ms: number | null; marked: MarkedPercentile }[];
}

export interface PreparedLatency {
  lines: PreparedLines | null;
  table: LatencyRow[];
  superseded: number;
}

export function prepareLatencyVsConnections(
  runs: LoadResultsRun[],
  sliceArg: SliceArg,
  percentile: number,
  tablePercentiles: readonly number[] = [50, 90, 99],
): PreparedLatency {
  const slice = toSlice(sliceArg);
  const { points, superseded } = pointsInSlice(runs, slice);
  const values = points.flatMap((point) => {
    const value = percentileMs(point.result, percentile);
    return value === null ? [] : [{ point, value }];
  });
  return {
    lines: linesBySlice(runs, values, valueAxis(values.map((v) => v.value)), slice.axis),
    table: points.map(({ run, result: r, connections, x }) => ({
      run: run.label,
      mode: r.mode,
      connections,
      x,
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
      percentiles: tablePercentiles.map((p) => ({
        p,
        ms: percentileMs(r, p),
        marked: markedPercentile(r, p),
      })),
    })),
    superseded,
  };
}
