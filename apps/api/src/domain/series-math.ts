// Reading stored metric rows: several rows per series and interval (one per replica, or
// per OTLP point) are combined here. Counters are summed, gauges take the last value by
// time, sets the union of members, distributions merge (distribution.ts); OTLP cumulative points
// become increases between consecutive points of one stream (a drop is a reset).
import type { SeriesKind } from '@meshbench/schema';
import {
  asDistribution,
  type Distribution,
  type DistributionPercentile,
  decodeDistribution,
  encodeDistribution,
  type KnownRange,
  mergeDistributions,
  percentilesOf,
  subtractDistribution,
} from './distribution.ts';

/** The values one row of a series holds for its interval; written by StatsD and OTLP alike. */
export interface AggregateValues {
  count: number;
  sum: number | null;
  min: number | null;
  max: number | null;
  last: number | null;
  lastAtMs: number | null;
  members: string[] | null;
  /** A distribution's values, encoded by distribution.ts (the column is named for its past). */
  sketch: Uint8Array | null;
}

export interface StoredRow extends AggregateValues {
  tMs: number;
  intervalMs: number;
  startAtMs: number | null;
  /** A gauge's value as exact decimal text, beyond float8's 2^53 (null: `last` is exact). */
  lastExact?: string | null;
  /** An OTLP Summary's quantiles as sent (q in [0, 1]). */
  quantiles?: Quantile[] | null;
}

export interface Quantile {
  q: number;
  value: number;
}

/** How a kind's rows combine. */
export type ValueClass = 'sum' | 'level' | 'distribution' | 'set';

export function valueClass(kind: SeriesKind): ValueClass {
  switch (kind) {
    case 'counter':
      return 'sum';
    case 'gauge':
    case 'updowncounter':
      return 'level';
    case 'set':
      return 'set';
    default:
      return 'distribution';
  }
}

/**
 * Two aggregates of one series over one interval from one replica, made one (StatsD keeps
 * an aggregate per line shape: the same counter sent at two sample rates is two): counts
 * and sums add, a gauge keeps the later value, distributions merge, sets unite.
 */
export function mergeAggregate(
  kind: SeriesKind,
  into: AggregateValues,
  from: AggregateValues,
): void {
  const cls = valueClass(kind);
  into.count += from.count;
  if (from.sum !== null) into.sum = (into.sum ?? 0) + from.sum;
  if (from.min !== null && (into.min === null || from.min < into.min)) into.min = from.min;
  if (from.max !== null && (into.max === null || from.max > into.max)) into.max = from.max;
  if (cls === 'level' && (into.lastAtMs ?? 0) <= (from.lastAtMs ?? 0)) {
    into.last = from.last;
    into.lastAtMs = from.lastAtMs;
  }
  if (from.members) into.members = [...new Set([...(into.members ?? []), ...from.members])];
  if (cls === 'set') into.last = into.members ? into.members.length : into.last;
  if (from.sketch) {
    const merged = into.sketch
      ? mergeDistributions([decodeDistribution(into.sketch), decodeDistribution(from.sketch)])
      : null;
    into.sketch = merged ? encodeDistribution(merged) : from.sketch;
  }
}

/** A row with one meaning per class: an increase, a level, or a distribution's part. */
export interface NormalRow {
  tMs: number;
  /** sum: the increase; level: the value; set: distinct members; distribution: unused. */
  value: number;
  count: number;
  sum: number;
  /** The row's own extremes; null where they cannot be known (see minBound). */
  min: number | null;
  max: number | null;
  /**
   * Where min or max cannot be known (a cumulative stream's increase: its points carry the
   * stream's min and max since its start, and the increase's own extremes are lost unless the
   * stream's moved), the stream's, which bound them: every value is within [minBound, maxBound].
   */
  minBound: number | null;
  maxBound: number | null;
  /**
   * When the time the row's figures cover began (an interval's start, a cumulative increase's
   * previous point or its stream's start_time), epoch ms; null for levels.
   */
  fromMs: number | null;
  /** Tie-break for levels written by several replicas in one interval. */
  atMs: number;
  members: string[] | null;
  /** A distribution's values (domain/distribution.ts), stored bytes or decoded. */
  sketch: Uint8Array | Distribution | null;
  lastExact: string | null;
  quantiles: Quantile[] | null;
}

const byTime = (a: { tMs: number; atMs: number }, b: { tMs: number; atMs: number }) =>
  a.tMs - b.tMs || a.atMs - b.atMs;

/**
 * Rows in time order with cumulative streams turned into increases (OpenTelemetry's
 * cumulative temporality: each point is the total since the stream's start). A stream's
 * point before the run's start is only the reference its first increase in the run is
 * counted from, and is not itself a row of the run. Without such a point, the stream's
 * first point counts whole when most of the time it covers, from the stream's start, lies
 * in the run (a process started for the run, or just before it); otherwise it is only the
 * reference, and the run's first interval of that stream is left out (an undercount,
 * never a guess).
 */
export function normalize(kind: SeriesKind, rows: StoredRow[], runStartMs: number): NormalRow[] {
  const cls = valueClass(kind);
  const out: NormalRow[] = [];
  const streams = new Map<number, StoredRow[]>();
  for (const r of rows) {
    if (r.startAtMs !== null && cls !== 'level') {
      let s = streams.get(r.startAtMs);
      if (!s) {
        s = [];
        streams.set(r.startAtMs, s);
      }
      s.push(r);
      continue;
    }
    out.push(plain(cls, r));
  }
  for (const [startAtMs, stream] of streams) {
    stream.sort((a, b) => a.tMs - b.tMs);
    let prev: StoredRow | null = null;
    for (const r of stream) {
      if (r.tMs < runStartMs) {
        prev = r; // a reference, not a row of the run
        continue;
      }
      const countsWhole = runStartMs - startAtMs <= r.tMs - runStartMs;
      out.push(increase(cls, r, prev, countsWhole));
      prev = r;
    }
  }
  if (kind === 'updowncounter') {
    // Delta up-down counters are a level: the running sum of their deltas.
    const deltas = out.filter((r) => Number.isNaN(r.value));
    if (deltas.length > 0) {
      deltas.sort(byTime);
      let level = 0;
      for (const r of deltas) {
        level += r.sum;
        r.value = level;
        r.min = level;
        r.max = level;
      }
    }
  }
  out.sort(byTime);
  return out;
}

function plain(cls: ValueClass, r: StoredRow): NormalRow {
  const n: NormalRow = {
    tMs: r.tMs,
    value: 0,
    count: r.count,
    sum: r.sum ?? 0,
    min: r.min,
    max: r.max,
    minBound: null,
    maxBound: null,
    fromMs: cls === 'level' ? null : r.tMs,
    atMs: r.lastAtMs ?? r.tMs + r.intervalMs,
    members: r.members,
    sketch: r.sketch,
    lastExact: r.lastExact ?? null,
    quantiles: r.quantiles ?? null,
  };
  if (cls === 'sum') n.value = r.sum ?? 0;
  else if (cls === 'level') {
    // A level row without `last` is a delta up-down counter: resolved by normalize().
    n.value = r.last ?? Number.NaN;
    if (r.last !== null) {
      n.min = r.min ?? r.last;
      n.max = r.max ?? r.last;
    }
  } else if (cls === 'set') n.value = r.members ? r.members.length : (r.last ?? 0);
  return n;
}

function increase(
  cls: ValueClass,
  r: StoredRow,
  prev: StoredRow | null,
  startedInRun: boolean,
): NormalRow {
  const n: NormalRow = {
    tMs: r.tMs,
    value: 0,
    count: 0,
    sum: 0,
    min: r.min,
    max: r.max,
    minBound: null,
    maxBound: null,
    // An increase covers the time since the previous point; a first point counted whole,
    // the time since its stream's start.
    fromMs: prev ? prev.tMs : startedInRun ? (r.startAtMs ?? r.tMs) : null,
    atMs: r.lastAtMs ?? r.tMs,
    members: null,
    sketch: null,
    lastExact: null,
    // A Summary's quantiles describe its whole stream so far: they are kept as sent.
    quantiles: r.quantiles ?? null,
  };
  if (cls === 'sum') {
    const v = r.last ?? 0;
    const p = prev?.last ?? 0;
    n.value = prev ? (v >= p ? v - p : v) : startedInRun ? v : 0;
    n.sum = n.value;
    n.count = prev || startedInRun ? 1 : 0;
    return n;
  }
  // Distributions: count, sum and sketch since the previous point of the stream.
  const reset = prev !== null && r.count < prev.count;
  if (prev && !reset) {
    n.count = r.count - prev.count;
    n.sum = (r.sum ?? 0) - (prev.sum ?? 0);
    if (r.sketch && prev.sketch && n.count > 0) {
      n.sketch = subtractDistribution(
        decodeDistribution(r.sketch),
        decodeDistribution(prev.sketch),
      );
    }
    // A point's min and max are over (start_time, time] (metrics.proto), so those of an
    // increase are known only where the stream's moved within it: a new max (or min) was
    // recorded since the previous point and is the increase's. Otherwise the stream's bound it.
    const newMax = r.max !== null && prev.max !== null && r.max > prev.max;
    const newMin = r.min !== null && prev.min !== null && r.min < prev.min;
    n.max = newMax ? r.max : null;
    n.min = newMin ? r.min : null;
    n.maxBound = newMax ? null : r.max;
    n.minBound = newMin ? null : r.min;
  } else if (prev || startedInRun) {
    n.count = r.count;
    n.sum = r.sum ?? 0;
    n.sketch = r.sketch;
  }
  if (n.count === 0) {
    n.min = null;
    n.max = null;
    n.minBound = null;
    n.maxBound = null;
  }
  return n;
}

/**
 * Counter increases per interval, replicas added up: the min and max of a counter are
 * those of whole intervals, not of one replica's share of one.
 */
function intervalTotals(rows: NormalRow[]): Extremes {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let t = Number.NaN;
  let acc = 0;
  const close = () => {
    if (Number.isNaN(t)) return;
    if (acc < min) min = acc;
    if (acc > max) max = acc;
  };
  for (const r of rows) {
    if (r.tMs !== t) {
      close();
      t = r.tMs;
      acc = 0;
    }
    acc += r.value;
  }
  close();
  return {
    min: Number.isFinite(min) ? min : null,
    max: Number.isFinite(max) ? max : null,
    streamMin: null,
    streamMax: null,
  };
}

interface Extremes {
  /** Exact, or null where not known. */
  min: number | null;
  max: number | null;
  /** Where min (max) is not known: the bound the rows' values lie above (below). */
  streamMin: number | null;
  streamMax: number | null;
}

/**
 * The rows' min and max: exact where every row's is known, or where the unknown ones are
 * bounded inside the known (a stream's max that did not move is below a max that did);
 * otherwise null, with the lowest (highest) bound beside it.
 */
function extremes(cls: ValueClass, rows: NormalRow[]): Extremes {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let minBound = Number.POSITIVE_INFINITY;
  let maxBound = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    const lo = cls === 'set' ? r.value : r.min;
    const hi = cls === 'set' ? r.value : r.max;
    if (lo !== null && lo < min) min = lo;
    if (hi !== null && hi > max) max = hi;
    if (r.minBound !== null && r.minBound < minBound) minBound = r.minBound;
    if (r.maxBound !== null && r.maxBound > maxBound) maxBound = r.maxBound;
  }
  // An unknown min is at least its bound: when every bound is at or above the known min,
  // the known min is the rows' min.
  const minKnown = !Number.isFinite(minBound) || (Number.isFinite(min) && minBound >= min);
  const maxKnown = !Number.isFinite(maxBound) || (Number.isFinite(max) && maxBound <= max);
  return {
    min: minKnown && Number.isFinite(min) ? min : null,
    max: maxKnown && Number.isFinite(max) ? max : null,
    streamMin: minKnown ? null : minBound,
    streamMax: maxKnown ? null : maxBound,
  };
}

/** The range percentiles are read in: exact extremes, or the bounds where those are unknown. */
const rangeOf = (e: Extremes): KnownRange => ({
  min: e.min,
  max: e.max,
  lowerBound: e.streamMin,
  upperBound: e.streamMax,
});

/** One distribution of every row's (the rows' own are never changed); null: none. */
function mergeAll(rows: NormalRow[]): Distribution | null {
  return mergeDistributions(rows.map((r) => (r.sketch ? asDistribution(r.sketch) : null)));
}

export interface CombinedStats {
  count: number;
  sum: number | null;
  /** Exact over the rows; null where it cannot be known (then streamMin bounds it). */
  min: number | null;
  max: number | null;
  /**
   * Where min or max cannot be known for the rows (cumulative streams that began before
   * them): the streams' own since their start, which bound the rows' values.
   */
  streamMin?: number;
  streamMax?: number;
  /**
   * How long before `runStartMs` the earliest time counted began, ms, when some of the
   * figures were counted over an interval that began before the run (a first interval
   * straddling the start, or a cumulative stream's first increase).
   */
  beforeRunMs?: number;
  last: number | null;
  /** The last value as exact decimal text, when float8 cannot hold it (beyond 2^53). */
  lastExact?: string;
  percentiles?: StatPercentile[];
}

/** A percentile with how it was obtained (packages/schema's accuracy convention). */
export type StatPercentile = DistributionPercentile;

/**
 * A Summary's quantiles as its client computed them over the stream so far (they do not
 * merge, so the latest is given): no bound is known.
 */
export function summaryPercentiles(quantiles: Quantile[]): StatPercentile[] {
  return quantiles
    .filter((q) => Number.isFinite(q.q) && Number.isFinite(q.value))
    .map((q) => ({ p: q.q * 100, value: q.value, exact: false, method: 'summary' as const }))
    .sort((a, b) => a.p - b.p);
}

/** The quantiles of the last row that has any. */
function lastQuantiles(rows: NormalRow[]): Quantile[] | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const q = (rows[i] as NormalRow).quantiles;
    if (q && q.length > 0) return q;
  }
  return null;
}

export const STAT_PERCENTILES: readonly number[] = [50, 90, 99];

/**
 * The last of rows in time order (the latest written of those at one time): a gauge
 * histogram's figures at the end of a window. Prometheus' gauge histograms
 * (prometheus/prometheus model/histogram/histogram.go at d15adb9ad7e5d9fbde3a9a8f30200593a5a14d86,
 * CounterResetHint GaugeType: "a gauge histogram, where counter resets do not happen") go
 * up and down: a sample is the distribution at its time, so two are never added.
 */
export function lastSnapshot(rows: NormalRow[]): NormalRow[] {
  let last: NormalRow | undefined;
  for (const r of rows)
    if (!last || r.tMs > last.tMs || (r.tMs === last.tMs && r.atMs >= last.atMs)) last = r;
  return last ? [last] : [];
}

/**
 * One series' stats over its rows (already normalized and windowed), with the nearest-rank
 * percentiles `ps` of a distribution's merged values.
 */
export function combineStats(
  kind: SeriesKind,
  rows: NormalRow[],
  ps: readonly number[] = STAT_PERCENTILES,
  /** The run's start: figures counted from before it are flagged (beforeRunMs). */
  runStartMs?: number,
): CombinedStats {
  const cls = valueClass(kind);
  // A gauge histogram's points are snapshots: the window's figures are its last one's.
  if (kind === 'gauge_histogram') rows = lastSnapshot(rows);
  let count = 0;
  let sum = 0;
  let last: number | null = null;
  let lastExact: string | null = null;
  let fromMs = Number.POSITIVE_INFINITY;
  for (const r of rows) {
    count += r.count;
    sum += cls === 'sum' ? r.value : r.sum;
    if (cls === 'level' || cls === 'set') {
      last = r.value;
      lastExact = r.lastExact;
    }
    if (r.fromMs !== null && r.count > 0 && r.fromMs < fromMs) fromMs = r.fromMs;
  }
  const range = cls === 'sum' ? intervalTotals(rows) : extremes(cls, rows);
  const stats: CombinedStats = {
    count,
    sum: cls === 'level' || cls === 'set' ? null : sum,
    min: range.min,
    max: range.max,
    last,
  };
  if (range.streamMin !== null) stats.streamMin = range.streamMin;
  if (range.streamMax !== null) stats.streamMax = range.streamMax;
  if (runStartMs !== undefined && fromMs < runStartMs) stats.beforeRunMs = runStartMs - fromMs;
  if (cls === 'set') {
    const all = new Set<string>();
    for (const r of rows) for (const m of r.members ?? []) all.add(m);
    stats.count = all.size;
  }
  if (lastExact !== null) stats.lastExact = lastExact;
  if (kind === 'summary') {
    const quantiles = lastQuantiles(rows);
    if (quantiles) stats.percentiles = summaryPercentiles(quantiles);
  } else if (cls === 'distribution') {
    const merged = mergeAll(rows);
    if (merged) {
      const got = percentilesOf(merged, ps, rangeOf(range));
      if (got.length > 0) stats.percentiles = got;
    }
  }
  return stats;
}

export interface Bucketed {
  /** Bucket start, ms since the axis origin. */
  offsetMs: number;
  value: number | null;
  min: number | null;
  max: number | null;
  count: number;
  ratePerSec?: number;
  p50?: number;
  p90?: number;
  p99?: number;
  /** Summaries: the bucket's last quantiles as sent. */
  quantiles?: StatPercentile[];
  /** Distributions: the asked percentiles of the bucket. */
  percentiles?: StatPercentile[];
}

/**
 * Downsampling to fixed time buckets that keeps peaks: each bucket carries the min and the
 * max of everything in it (a one-second spike survives any zoom level), with the value
 * the class calls for: increase (and rate), last level, distinct members, or mean.
 */
export function bucketize(
  kind: SeriesKind,
  rows: NormalRow[],
  originMs: number,
  bucketMs: number,
  buckets: number,
  opts: { percentiles?: boolean; asked?: readonly number[] } = {},
): Bucketed[] {
  const cls = valueClass(kind);
  const groups: NormalRow[][] = [];
  for (const r of rows) {
    let i = Math.floor((r.tMs - originMs) / bucketMs);
    if (i < 0) i = 0;
    if (i >= buckets) i = buckets - 1;
    let g = groups[i];
    if (!g) {
      g = [];
      groups[i] = g;
    }
    g.push(r);
  }
  const out: Bucketed[] = [];
  groups.forEach((whole, i) => {
    if (!whole) return;
    // A gauge histogram's bucket is its last snapshot in it, never a sum of snapshots.
    const g = kind === 'gauge_histogram' ? lastSnapshot(whole) : whole;
    const offsetMs = i * bucketMs;
    let count = 0;
    let sum = 0;
    for (const r of g) {
      count += r.count;
      sum += cls === 'sum' ? r.value : r.sum;
    }
    const range = cls === 'sum' ? intervalTotals(g) : extremes(cls, g);
    const b: Bucketed = { offsetMs, value: null, min: range.min, max: range.max, count };
    if (cls === 'sum') {
      b.value = sum;
      b.ratePerSec = sum / (bucketMs / 1000);
    } else if (cls === 'level') {
      b.value = (g[g.length - 1] as NormalRow).value;
    } else if (cls === 'set') {
      const members = new Set<string>();
      let fallback = 0;
      for (const r of g) {
        if (r.members) for (const m of r.members) members.add(m);
        else fallback = Math.max(fallback, r.value);
      }
      b.value = Math.max(members.size, fallback);
    } else if (kind === 'summary') {
      b.value = count > 0 ? sum / count : null;
      const quantiles = lastQuantiles(g);
      if (quantiles) {
        b.quantiles = summaryPercentiles(quantiles);
        for (const q of b.quantiles) {
          if (q.p === 50) b.p50 = q.value;
          else if (q.p === 90) b.p90 = q.value;
          else if (q.p === 99) b.p99 = q.value;
        }
      }
    } else {
      b.value = count > 0 ? sum / count : null;
      if (opts.percentiles) {
        const merged = mergeAll(g);
        if (merged) {
          const known = rangeOf(range);
          const [p50, p90, p99] = percentilesOf(merged, [50, 90, 99], known);
          if (p50) b.p50 = p50.value;
          if (p90) b.p90 = p90.value;
          if (p99) b.p99 = p99.value;
          if (opts.asked) b.percentiles = percentilesOf(merged, opts.asked, known);
        }
      }
    }
    out.push(b);
  });
  return out;
}

/** The bucket width for at most `points` buckets over `spanMs`, never finer than `minMs`. */
export function bucketWidth(spanMs: number, points: number, minMs = 1000): number {
  const raw = Math.max(minMs, Math.ceil(spanMs / Math.max(1, points)));
  // Round up to a tidy width (1, 2 or 5 x 10^k ms) so buckets line up across series.
  const k = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * k >= raw) return m * k;
  return raw;
}
