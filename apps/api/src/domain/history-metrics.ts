// The numbers a history reads from one run, from what the run keeps: its change's propagation
// (pooled over every change of a run with several), its nodes' first joins and its
// control-plane CPU (scale-up), its load steps (data plane: a step of several generators by
// its merged row). Pure: the history service reads the rows, these functions compute.

import type {
  HistoryMetric,
  PercentileAccuracy,
  PercentileValue,
  PooledDistribution,
  Propagation,
  Topology,
} from '@meshbench/schema';
import { METRICS } from '@meshbench/schema';
import { withRequestedPercentiles } from './bucket-percentiles.ts';
import { declaredTotal, rankFor, TIME_TO_PERCENTS } from './lifecycle.ts';
import { lowerMedianRank } from './nearest-rank.ts';

/** A value and how exact it is (null: not a percentile or a time to N %). */
export interface Valued {
  value: number;
  accuracy: PercentileAccuracy | null;
}

/** One load step of a run (its own row, or its generators' merged row), as a history reads it. */
export interface LoadFacts {
  mode: string;
  connections: number | null;
  targetRps: number | null;
  /** The step's configuration (an Istio perf CSV label's config); null when none. */
  config: string | null;
  achievedRps: number | null;
  requests: number | null;
  errors: number | null;
  p50: PercentileValue | null;
  p99: PercentileValue | null;
}

/** Everything a history may read of one run; the data-plane metrics need a load point. */
export interface RunFacts {
  values: Partial<Record<HistoryMetric, Valued>>;
  load: LoadFacts[];
  /** The propagation metrics are pooled over this many changes; null: over the one change. */
  pooledChanges: number | null;
}

const accuracyOf = (p: PercentileValue): PercentileAccuracy => ({
  exact: p.exact ?? false,
  method: p.method ?? 'reported',
  ...(p.lower !== undefined ? { lower: p.lower } : {}),
  ...(p.upper !== undefined ? { upper: p.upper } : {}),
  ...(p.relativeError !== undefined ? { relativeError: p.relativeError } : {}),
  ...(p.clockErrorMs !== undefined ? { clockErrorMs: p.clockErrorMs } : {}),
});

const PROPAGATION_PERCENTILES = ['p50', 'p90', 'p95', 'p96', 'p99', 'p99.9'];

/** The percentiles the propagation metrics name, as numbers (50, 90 ... 99.9). */
export const PROPAGATION_HISTORY_PERCENTILES = PROPAGATION_PERCENTILES.map((m) =>
  Number(m.slice(1)),
);

/**
 * Propagation metrics of a run of several changes, over every first application of every
 * change (GET /runs/{id}/propagation's pooled distribution): each percentile pooled (not a
 * mean or a percentile of the per-change ones), the share within 1 s over the sum of the
 * changes' expected proxies, missing as expected minus applied when every change declares.
 */
export function pooledFacts(p: PooledDistribution): RunFacts['values'] {
  const out: RunFacts['values'] = {};
  for (const x of p.percentiles) {
    const name = `p${x.p}` as HistoryMetric;
    if (PROPAGATION_PERCENTILES.includes(name))
      out[name] = { value: x.ms, accuracy: accuracyOf(x) };
  }
  if (p.meanMs !== null) out.mean = { value: p.meanMs, accuracy: null };
  if (p.maxMs !== null) out.max = { value: p.maxMs, accuracy: null };
  if (p.withinFraction !== null) out.within1s = { value: p.withinFraction * 100, accuracy: null };
  if (p.expected !== null)
    out.missing = { value: Math.max(0, p.expected - p.count), accuracy: null };
  return out;
}

/** Propagation metrics of a run's one change (the names of METRICS). */
export function propagationFacts(p: Propagation): RunFacts['values'] {
  const out: RunFacts['values'] = {};
  for (const x of p.percentiles) {
    const name = `p${x.p}` as HistoryMetric;
    if (PROPAGATION_PERCENTILES.includes(name))
      out[name] = { value: x.ms, accuracy: accuracyOf(x) };
  }
  if (p.meanMs !== null) out.mean = { value: p.meanMs, accuracy: null };
  if (p.maxMs !== null) out.max = { value: p.maxMs, accuracy: null };
  if (p.withinFraction !== null) out.within1s = { value: p.withinFraction * 100, accuracy: null };
  if (p.missing !== null) out.missing = { value: p.missing, accuracy: null };
  return out;
}

/** A phase's first arrivals, ascending epoch ms. */
export interface JoinPhase {
  phase: string;
  attrsTotal: number | null;
  firsts: ArrayLike<number>;
}

/** The phase a scale-up's joins are: the first named like "join" (joined, node-join...). */
export const isJoinPhase = (phase: string) => /join/i.test(phase);

/**
 * Time to 50/90/99/100 % joined, ms from the run's start, at the nearest rank of the
 * nodes' first joins against the phase's declared total (as the timeline computes it);
 * a percent no join reached is left out. Also the last join, epoch ms.
 */
export function joinFacts(
  phase: JoinPhase,
  topology: Topology,
  startMs: number,
): { values: RunFacts['values']; lastJoinMs: number | null } {
  const n = phase.firsts.length;
  if (n === 0) return { values: {}, lastJoinMs: null };
  const { total } = declaredTotal(phase.phase, phase.attrsTotal, topology, n);
  const values: RunFacts['values'] = {};
  for (const percent of TIME_TO_PERCENTS) {
    const rank = rankFor(percent, total);
    if (rank > n) continue;
    values[`joined${percent}` as HistoryMetric] = {
      value: (phase.firsts[rank - 1] as number) - startMs,
      accuracy: { exact: true, method: 'raw' },
    };
  }
  return { values, lastJoinMs: phase.firsts[n - 1] as number };
}

/**
 * Control-plane CPU from a gauge's samples (or a CPU-seconds counter's rates in cores): the
 * peak (the largest sample, or interval maximum) and the steady level, the mean of the samples
 * after the ramp (steadyStart: every lifecycle phase at 100 %; a rate's interval from there
 * on), null without phases or samples after it.
 */
export function cpuFacts(
  samples: { tMs: number; value: number; max: number | null; fromMs?: number | null }[],
  steadyFromMs: number | null,
): RunFacts['values'] {
  const out: RunFacts['values'] = {};
  if (samples.length === 0) return out;
  let peak = Number.NEGATIVE_INFINITY;
  for (const s of samples) peak = Math.max(peak, s.max ?? s.value, s.value);
  if (Number.isFinite(peak)) out.cpuPeak = { value: peak, accuracy: null };
  if (steadyFromMs !== null) {
    const after = samples.filter((s) =>
      s.fromMs == null ? s.tMs > steadyFromMs : s.fromMs >= steadyFromMs,
    );
    if (after.length > 0)
      out.cpuSteady = {
        value: after.reduce((a, s) => a + s.value, 0) / after.length,
        accuracy: null,
      };
  }
  return out;
}

/**
 * A load step reduced: P50 and P99 as stated (a merged row's from its generators' added
 * HdrHistograms), else from its histogram. One generator's share of a step is not a step.
 */
export function loadFacts(row: {
  mode: string;
  connections: number | null;
  targetRps: number | null;
  achievedRps: number | null;
  requests: number | null;
  errors: number | null;
  percentiles: PercentileValue[];
  histogram: { fromMs: number; toMs: number; count: number }[] | null;
  labels: Record<string, string>;
}): LoadFacts {
  const ps = withRequestedPercentiles(row.percentiles, row.histogram, [50, 99]);
  return {
    mode: row.mode,
    connections: row.connections,
    targetRps: row.targetRps,
    config: row.labels.config ?? null,
    achievedRps: row.achievedRps,
    requests: row.requests,
    errors: row.errors,
    p50: ps.find((x) => x.p === 50) ?? null,
    p99: ps.find((x) => x.p === 99) ?? null,
  };
}

export interface LoadPoint {
  mode: string;
  connections: number | null;
  targetRps: number | null;
  config: string | null;
}

/** The most common of `values` (ties: null first, then by name); undefined when none. */
function mostCommon(values: (string | null)[]): string | null | undefined {
  const counts = new Map<string | null, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort(
    (a, b) =>
      b[1] - a[1] ||
      (a[0] === null ? -1 : b[0] === null ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
  )[0]?.[0];
}

/**
 * The load point a history reads: what the request names, else mode "both" when a run has
 * it (else the most common mode), the most connections the runs have at it, the highest
 * target rate at those, and the most common configuration there (points of different
 * configurations are different series, never one).
 */
export function chooseLoadPoint(
  all: LoadFacts[],
  want: { mode?: string; connections?: number; targetRps?: number; config?: string },
): LoadPoint | null {
  if (all.length === 0) return null;
  let mode = want.mode;
  if (mode === undefined) {
    const counts = new Map<string, number>();
    for (const l of all) counts.set(l.mode, (counts.get(l.mode) ?? 0) + 1);
    mode = counts.has('both')
      ? 'both'
      : ([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] as string);
  }
  const ofMode = all.filter((l) => l.mode === mode);
  const most = (xs: (number | null)[]) => {
    const n = xs.filter((x): x is number => x !== null);
    return n.length > 0 ? Math.max(...n) : null;
  };
  const connections = want.connections ?? most(ofMode.map((l) => l.connections));
  const atConnections = ofMode.filter((l) => l.connections === connections);
  const targetRps = want.targetRps ?? most(atConnections.map((l) => l.targetRps));
  const atRate = atConnections.filter((l) => l.targetRps === targetRps);
  const config = want.config ?? mostCommon(atRate.map((l) => l.config)) ?? null;
  return { mode, connections, targetRps, config };
}

/** The lower median (nearest rank 50) of the rows' values, with the row it is from. */
function medianOf<T>(rows: T[], value: (r: T) => number | null): { row: T; value: number } | null {
  const valued = rows
    .map((row) => ({ row, value: value(row) }))
    .filter((x): x is { row: T; value: number } => x.value !== null)
    .sort((a, b) => a.value - b.value);
  return valued[lowerMedianRank(valued.length) - 1] ?? null;
}

/**
 * A data-plane metric of a run at a load point: its step there (one row, or its generators'
 * merged row). Repeats of the step (the same point posted again) are read as the median of
 * their values (the nearest-rank median, P50 of the repeats); the error rate pools them.
 */
export function loadValue(
  load: LoadFacts[],
  point: LoadPoint,
  metric: 'loadP50' | 'loadP99' | 'achievedRps' | 'errorRate',
): Valued | null {
  const rows = load.filter(
    (l) =>
      l.mode === point.mode &&
      l.connections === point.connections &&
      l.targetRps === point.targetRps &&
      (l.config ?? null) === point.config,
  );
  if (rows.length === 0) return null;
  const sum = (xs: (number | null)[]) =>
    xs.some((x) => x === null) ? null : xs.reduce((a: number, x) => a + (x as number), 0);
  if (metric === 'achievedRps') {
    const m = medianOf(rows, (r) => r.achievedRps);
    return m === null ? null : { value: m.value, accuracy: null };
  }
  if (metric === 'errorRate') {
    const errors = sum(rows.map((r) => r.errors));
    const requests = sum(rows.map((r) => r.requests));
    if (errors === null || requests === null || requests === 0) return null;
    return { value: (errors / requests) * 100, accuracy: null };
  }
  const of = (r: LoadFacts) => (metric === 'loadP50' ? r.p50 : r.p99);
  const m = medianOf(rows, (r) => of(r)?.ms ?? null);
  const p = m ? of(m.row) : null;
  return p ? { value: p.ms, accuracy: accuracyOf(p) } : null;
}

export const LOAD_METRICS = ['loadP50', 'loadP99', 'achievedRps', 'errorRate'] as const;
export const isLoadMetric = (m: HistoryMetric): m is (typeof LOAD_METRICS)[number] =>
  (LOAD_METRICS as readonly string[]).includes(m);

/** The metrics of a run's propagation: pooled over the changes of a run with several. */
export const POOLABLE = new Set<HistoryMetric>(METRICS);

/** Whether a kept alert's load point (its details) is `a`. */
export const samePoint = (a: LoadPoint | null, b: unknown): boolean => {
  const p = b as LoadPoint | undefined;
  return (
    a !== null &&
    p !== undefined &&
    p.mode === a.mode &&
    p.connections === a.connections &&
    p.targetRps === a.targetRps &&
    (p.config ?? null) === a.config
  );
};

/** A history metric of a run; data-plane metrics at `point`. */
export const metricOf = (f: RunFacts, metric: HistoryMetric, point: LoadPoint | null) =>
  isLoadMetric(metric)
    ? point
      ? loadValue(f.load, point, metric)
      : null
    : (f.values[metric] ?? null);
