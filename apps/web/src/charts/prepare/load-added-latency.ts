// The added-latency panel: each mode's percentile over the baseline's at the same connections.

import {
  BASELINE_MODE,
  fromEstimate,
  type LoadResultsRun,
  linesBySlice,
  markedPercentile,
  type PreparedLines,
  percentileMs,
  pointsInSlice,
  type RatePoint,
  type SliceArg,
  stepOf,
  toSlice,
  valueAxis,
} from './load-results.ts';
import type { MarkedPercentile } from './percentile-accuracy.ts';

export interface AddedLatencyRow {
  run: string;
  mode: string;
  connections: number;
  /** Where the point lies on the chart's x axis (its connections or its rate). */
  x: number;
  ms: number;
  baselineMs: number;
  addedMs: number;
  /** Added latency as a share of the baseline; null when the baseline is 0. */
  addedFraction: number | null;
  /** The point's and the baseline's percentile as their cells show them. */
  marked: { ms: MarkedPercentile; baselineMs: MarkedPercentile };
  /** The added latency is a difference of estimates (either percentile is one). */
  addedFromEstimate: boolean;
}

export interface PreparedAddedLatency {
  lines: PreparedLines | null;
  table: AddedLatencyRow[];
  /** Points at this rate with a percentile but no baseline at the same connections. */
  withoutBaseline: number;
  hasBaseline: boolean;
}

/**
 * What the sidecars add: each point's percentile minus that of the same run's baseline point
 * at the same step: the same connections at one rate, or about the same rate (two digits) at
 * one connection count (Istio: "subtract base from both").
 */
export function prepareAddedLatency(
  runs: LoadResultsRun[],
  sliceArg: SliceArg,
  percentile: number,
): PreparedAddedLatency {
  const slice = toSlice(sliceArg);
  const { points } = pointsInSlice(runs, slice);
  const step = (p: RatePoint) => `${p.runIndex}\u0000${stepOf(slice.axis, p.x)}`;
  // A baseline of the point's own configuration; else the step's one baseline, if one.
  const ofConfig = (p: RatePoint) => `${step(p)}\u0000${p.config ?? ''}`;
  const byConfig = new Map<string, { ms: number; marked: MarkedPercentile }>();
  const byStep = new Map<string, { ms: number; marked: MarkedPercentile }[]>();
  for (const p of points) {
    const ms = percentileMs(p.result, percentile);
    if (p.result.mode === BASELINE_MODE && ms !== null) {
      const b = { ms, marked: markedPercentile(p.result, percentile) };
      byConfig.set(ofConfig(p), b);
      byStep.set(step(p), [...(byStep.get(step(p)) ?? []), b]);
    }
  }
  const baselines = {
    get: (p: RatePoint) => {
      const own = byConfig.get(ofConfig(p));
      const all = byStep.get(step(p)) ?? [];
      return own ?? (all.length === 1 ? all[0] : undefined);
    },
  };
  const table: AddedLatencyRow[] = [];
  const values: { point: RatePoint; value: number }[] = [];
  let withoutBaseline = 0;
  for (const point of points) {
    if (point.result.mode === BASELINE_MODE) continue;
    const ms = percentileMs(point.result, percentile);
    if (ms === null) continue;
    const baseline = baselines.get(point);
    if (baseline === undefined) {
      withoutBaseline++;
      continue;
    }
    const baselineMs = baseline.ms;
    const addedMs = ms - baselineMs;
    const marked = { ms: markedPercentile(point.result, percentile), baselineMs: baseline.marked };
    values.push({ point, value: addedMs });
    table.push({
      run: point.run.label,
      mode: point.series,
      connections: point.connections,
      x: point.x,
      ms,
      baselineMs,
      addedMs,
      addedFraction: baselineMs > 0 ? addedMs / baselineMs : null,
      marked,
      addedFromEstimate: fromEstimate(marked.ms, marked.baselineMs),
    });
  }
  return {
    lines: linesBySlice(runs, values, valueAxis(values.map((v) => v.value)), slice.axis),
    table,
    withoutBaseline,
    hasBaseline: byStep.size > 0,
  };
}
