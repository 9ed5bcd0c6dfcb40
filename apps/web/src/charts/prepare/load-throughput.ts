// The throughput panel: the rate achieved as a share of the target, against connections.
import { linearTicks } from './axis.ts';
import {
  type LoadResultsRun,
  linesBySlice,
  type NumberAxis,
  type PreparedLines,
  pointsInSlice,
  type RatePoint,
  type SliceArg,
  toSlice,
} from './load-results.ts';

export interface ThroughputRow {
  run: string;
  mode: string;
  connections: number;
  /** Where the point lies on the chart's x axis (its connections or its rate). */
  x: number;
  targetRps: number;
  achievedRps: number;
  /** achieved / target. */
  fraction: number;
}

export interface PreparedThroughput {
  lines: PreparedLines | null;
  table: ThroughputRow[];
  /** Set when the rate has no target to measure against. */
  noTarget: boolean;
}

/**
 * The % of the target rate axis: from 95 % (lower when a point fell further) to 100 % or
 * above, with a little room over the top so that the 100 % line does not sit on the edge.
 */
export function percentOfTargetAxis(percents: number[]): NumberAxis {
  const min = Math.min(100, ...percents);
  const max = Math.max(100, ...percents);
  const bottom = Math.max(0, Math.min(95, Math.floor(min / 5) * 5));
  const top = Math.ceil(max);
  return {
    scale: 'linear',
    domain: [bottom, top + (top - bottom) * 0.04],
    ticks: linearTicks(bottom, top, 5),
  };
}

export function prepareThroughput(runs: LoadResultsRun[], sliceArg: SliceArg): PreparedThroughput {
  const slice = toSlice(sliceArg);
  const { points } = pointsInSlice(runs, slice);
  const table: ThroughputRow[] = [];
  const values: { point: RatePoint; value: number }[] = [];
  for (const point of points) {
    const { targetRps, achievedRps } = point.result;
    if (targetRps === null || achievedRps === null || !(targetRps > 0)) continue;
    const fraction = achievedRps / targetRps;
    values.push({ point, value: fraction * 100 });
    table.push({
      run: point.run.label,
      mode: point.series,
      connections: point.connections,
      x: point.x,
      targetRps,
      achievedRps,
      fraction,
    });
  }
  return {
    lines: linesBySlice(runs, values, percentOfTargetAxis(values.map((v) => v.value)), slice.axis),
    table,
    noTarget: points.length > 0 && values.length === 0,
  };
}
