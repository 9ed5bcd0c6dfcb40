// The added-latency panel: each mode's percentile over the baseline's at the same connections.

import {
  BASELINE_MODE,
  fromEstimate,
  type LoadResultsRun,
  linesByConnections,
  markedPercentile,
  type PreparedLines,
  percentileMs,
  pointsAtRate,
  type RatePoint,
  valueAxis,
} from './load-results.ts';
import type { MarkedPercentile } from './percentile-accuracy.ts';

export interface AddedLatencyRow {
  run: string;
  mode: string;
  connections: number;
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
 * at the same connections and the same rate (Istio: "subtract base from both").
 */
export function prepareAddedLatency(
  runs: LoadResultsRun[],
  rateKey: string | null,
  percentile: number,
): PreparedAddedLatency {
  const { points } = pointsAtRate(runs, rateKey);
  const baselines = new Map<string, { ms: number; marked: MarkedPercentile }>();
  for (const p of points) {
    const ms = percentileMs(p.result, percentile);
    if (p.result.mode === BASELINE_MODE && ms !== null) {
      baselines.set(`${p.runIndex}\u0000${p.connections}`, {
        ms,
        marked: markedPercentile(p.result, percentile),
      });
    }
  }
  const table: AddedLatencyRow[] = [];
  const values: { point: RatePoint; value: number }[] = [];
  let withoutBaseline = 0;
  for (const point of points) {
    if (point.result.mode === BASELINE_MODE) continue;
    const ms = percentileMs(point.result, percentile);
    if (ms === null) continue;
    const baseline = baselines.get(`${point.runIndex}\u0000${point.connections}`);
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
      mode: point.result.mode,
      connections: point.connections,
      ms,
      baselineMs,
      addedMs,
      addedFraction: baselineMs > 0 ? addedMs / baselineMs : null,
      marked,
      addedFromEstimate: fromEstimate(marked.ms, marked.baselineMs),
    });
  }
  return {
    lines: linesByConnections(runs, values, valueAxis(values.map((v) => v.value))),
    table,
    withoutBaseline,
    hasBaseline: baselines.size > 0,
  };
}
