// The tail-band panel: P99 / P50 per point, marked where it reaches the limit.

import {
  fromEstimate,
  type LoadResultsRun,
  linesBySlice,
  markedPercentile,
  type PreparedLines,
  percentileMs,
  pointsInSlice,
  type RatePoint,
  type SliceArg,
  toSlice,
  valueAxis,
} from './load-results.ts';
import type { MarkedPercentile } from './percentile-accuracy.ts';

export interface TailBandRow {
  run: string;
  mode: string;
  connections: number;
  /** Where the point lies on the chart's x axis (its connections or its rate). */
  x: number;
  p50: number;
  p99: number;
  marked: { p50: MarkedPercentile; p99: MarkedPercentile };
  ratio: number;
  /** The ratio is taken from an estimate (P50 or P99 is one). */
  ratioFromEstimate: boolean;
  /** P99 reached limit x P50 (the test requires P99 to stay under it). */
  over: boolean;
}

export interface PreparedTailBand {
  lines: PreparedLines | null;
  table: TailBandRow[];
  over: number;
}

export function prepareTailBand(
  runs: LoadResultsRun[],
  sliceArg: SliceArg,
  limit: number,
): PreparedTailBand {
  const slice = toSlice(sliceArg);
  const { points } = pointsInSlice(runs, slice);
  const table: TailBandRow[] = [];
  const values: { point: RatePoint; value: number; mark: boolean }[] = [];
  for (const point of points) {
    const p50 = percentileMs(point.result, 50);
    const p99 = percentileMs(point.result, 99);
    if (p50 === null || p99 === null || !(p50 > 0)) continue;
    const ratio = p99 / p50;
    const over = ratio >= limit;
    values.push({ point, value: ratio, mark: over });
    const marked = {
      p50: markedPercentile(point.result, 50),
      p99: markedPercentile(point.result, 99),
    };
    table.push({
      run: point.run.label,
      mode: point.series,
      connections: point.connections,
      x: point.x,
      p50,
      p99,
      marked,
      ratio,
      ratioFromEstimate: fromEstimate(marked.p50, marked.p99),
      over,
    });
  }
  const ratios = values.map((v) => v.value);
  // Room above the limit line, so that it never sits on the chart's top edge.
  const y = valueAxis([...ratios, limit > 0 ? limit * 1.1 : 0]);
  return {
    lines: linesBySlice(runs, values, y, slice.axis),
    table,
    over: table.filter((r) => r.over).length,
  };
}
