// The numbers a history reads from one run, from what the run keeps: its first change's
// propagation, its nodes' first joins and its control-plane CPU (scale-up), its load points
// (data plane). Pure: the history service reads the rows, these functions compute.
import type {
  HistoryMetric,
  PercentileAccuracy,
  PercentileValue,
  Propagation,
  Topology,
} from '@meshbench/schema';
import { withRequestedPercentiles } from './bucket-percentiles.ts';
import { declaredTotal, rankFor, TIME_TO_PERCENTS } from './lifecycle.ts';

/** A value and how exact it is (null: not a percentile or a time to N %). */
export interface Valued {
  value: number;
  accuracy: PercentileAccuracy | null;
}

/** One load point of a run, reduced to what a history reads. */
export interface LoadFacts {
  mode: string;
  connections: number | null;
  targetRps: number | null;
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
}

const accuracyOf = (p: PercentileValue): PercentileAccuracy => ({
  exact: p.exact ?? false,
  method: p.method ?? 'reported',
  ...(p.lower !== undefined ? { lower: p.lower } : {}),
  ...(p.upper !== undefined ? { upper: p.upper } : {}),
  ...(p.relativeError !== undefined ? { relativeError: p.relativeError } : {}),
  ...(p.clockErrorMs !== undefined ? { clockErrorMs: p.clockErrorMs } : {}),
});

/** Propagation metrics of a run's first change (the names of METRICS). */
export function propagationFacts(p: Propagation): RunFacts['values'] {
  const out: RunFacts['values'] = {};
  for (const x of p.percentiles) {
    const name = `p${x.p}` as HistoryMetric;
    if (['p50', 'p90', 'p95', 'p96', 'p99', 'p99.9'].includes(name))
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
 * Control-plane CPU from a gauge's samples: the peak (the largest sample, or interval
 * maximum) and the steady level, the mean of the samples after the last join (null without
 * joins or samples after it).
 */
export function cpuFacts(
  samples: { tMs: number; value: number; max: number | null }[],
  lastJoinMs: number | null,
): RunFacts['values'] {
  const out: RunFacts['values'] = {};
  if (samples.length === 0) return out;
  let peak = Number.NEGATIVE_INFINITY;
  for (const s of samples) peak = Math.max(peak, s.max ?? s.value, s.value);
  if (Number.isFinite(peak)) out.cpuPeak = { value: peak, accuracy: null };
  if (lastJoinMs !== null) {
    const after = samples.filter((s) => s.tMs > lastJoinMs);
    if (after.length > 0)
      out.cpuSteady = {
        value: after.reduce((a, s) => a + s.value, 0) / after.length,
        accuracy: null,
      };
  }
  return out;
}

/** A stored load point reduced: P50 and P99 as stated, else from its histogram. */
export function loadFacts(row: {
  mode: string;
  connections: number | null;
  targetRps: number | null;
  achievedRps: number | null;
  requests: number | null;
  errors: number | null;
  percentiles: PercentileValue[];
  histogram: { fromMs: number; toMs: number; count: number }[] | null;
}): LoadFacts {
  const ps = withRequestedPercentiles(row.percentiles, row.histogram, [50, 99]);
  return {
    mode: row.mode,
    connections: row.connections,
    targetRps: row.targetRps,
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
}

/**
 * The load point a history reads: what the request names, else mode "both" when a run has
 * it (else the most common mode), the most connections the runs have at it, and the
 * highest target rate at those.
 */
export function chooseLoadPoint(
  all: LoadFacts[],
  want: { mode?: string; connections?: number; targetRps?: number },
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
  return { mode, connections, targetRps };
}

/**
 * A data-plane metric of a run at a load point. Several rows at the point (one per load
 * generator) add their rates, requests and errors; their percentiles are not merged, so the
 * latencies are read only where the point has one row.
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
      l.targetRps === point.targetRps,
  );
  if (rows.length === 0) return null;
  const sum = (xs: (number | null)[]) =>
    xs.some((x) => x === null) ? null : xs.reduce((a: number, x) => a + (x as number), 0);
  if (metric === 'achievedRps') {
    const v = sum(rows.map((r) => r.achievedRps));
    return v === null ? null : { value: v, accuracy: null };
  }
  if (metric === 'errorRate') {
    const errors = sum(rows.map((r) => r.errors));
    const requests = sum(rows.map((r) => r.requests));
    if (errors === null || requests === null || requests === 0) return null;
    return { value: (errors / requests) * 100, accuracy: null };
  }
  if (rows.length !== 1) return null;
  const p = metric === 'loadP50' ? rows[0]?.p50 : rows[0]?.p99;
  return p ? { value: p.ms, accuracy: accuracyOf(p) } : null;
}

export const LOAD_METRICS = ['loadP50', 'loadP99', 'achievedRps', 'errorRate'] as const;
export const isLoadMetric = (m: HistoryMetric): m is (typeof LOAD_METRICS)[number] =>
  (LOAD_METRICS as readonly string[]).includes(m);
