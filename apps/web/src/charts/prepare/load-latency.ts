// The latency panel: a percentile per (run, mode, configuration) along connections at one rate,
// or along the rate achieved at one connection count, and its table (repeats: their median,
// with the range).

import {
  type LoadResultsRun,
  linesBySlice,
  markedPercentile,
  type PreparedLines,
  percentileMs,
  pointsInSlice,
  repeatRange,
  type SliceArg,
  toSlice,
  valueAxis,
} from './load-results.ts';
import type { MarkedPercentile } from './percentile-accuracy.ts';

export interface LatencyRow {
  run: string;
  mode: string;
  config: string | null;
  /** The series it is drawn in: mode, and configuration when it has one. */
  series: string;
  /** Results at this point: more than one are repeats, shown by their median. */
  repeats: number;
  /** The drawn percentile's lowest and highest over the repeats (null: one result). */
  range: { min: number; max: number } | null;
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
  /** Points with repeats (each drawn as the median of its results). */
  repeated: number;
}

export function prepareLatencyVsConnections(
  runs: LoadResultsRun[],
  sliceArg: SliceArg,
  percentile: number,
  tablePercentiles: readonly number[] = [50, 90, 99],
): PreparedLatency {
  const slice = toSlice(sliceArg);
  const { points, repeated } = pointsInSlice(runs, slice);
  const values = points.flatMap((point) => {
    const value = percentileMs(point.result, percentile);
    return value === null ? [] : [{ point, value }];
  });
  return {
    lines: linesBySlice(runs, values, valueAxis(values.map((v) => v.value)), slice.axis),
    table: points.map((point) => {
      const { run, result: r, connections, x } = point;
      return {
        run: run.label,
        mode: r.mode,
        config: point.config,
        series: point.series,
        repeats: point.repeats.length,
        range: repeatRange(point, percentile),
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
      };
    }),
    repeated,
  };
}
