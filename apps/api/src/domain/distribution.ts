// One series' distribution over an interval, in the form its source gave it: the raw values
// (StatsD intervals with few samples), an explicit-bucket or exponential histogram (OTLP,
// layout kept), or a DDSketch. Merged and subtracted exactly within a form; percentiles at
// the nearest rank with the accuracy fields of packages/schema/src/accuracy.ts.
// The OTLP layouts follow open-telemetry/opentelemetry-proto
// opentelemetry/proto/metrics/v1/metrics.proto (v1.5): HistogramDataPoint bucket i holds
// (explicit_bounds[i-1], explicit_bounds[i]]; ExponentialHistogramDataPoint bucket index i
// holds (base^i, base^(i+1)] with base = 2^(2^-scale), and downscaling by d maps i to i >> d.
import type { PercentileMethod } from '@meshbench/schema';
import { nearestRank } from './nearest-rank.ts';
import {
  decodeSketch,
  encodeSketch,
  mergeInto,
  newSketch,
  type Sketch,
  sketchFromBuckets,
  sketchFromExponential,
  subtractSketch,
} from './sketch.ts';

/** Samples of one StatsD interval kept as they are (exact percentiles) up to this many. */
export const RAW_SAMPLE_LIMIT = 256;
/** Raw values merged on read past this many become a DDSketch (bounded memory and sort). */
export const MERGED_RAW_LIMIT = 100_000;

export interface ExponentialBuckets {
  offset: number;
  bucketCounts: number[];
}

export type Distribution =
  | { form: 'raw'; values: number[] }
  | { form: 'explicit'; bounds: number[]; counts: number[] }
  | {
      form: 'exponential';
      scale: number;
      zeroCount: number;
      zeroThreshold: number;
      positive: ExponentialBuckets;
      negative: ExponentialBuckets;
    }
  /** `unbounded`: built from buckets of another form (mixed data): no bound is known. */
  | { form: 'ddsketch'; sketch: Sketch; unbounded?: boolean };

export type ExponentialDistribution = Extract<Distribution, { form: 'exponential' }>;

export interface DistributionPercentile {
  p: number;
  value: number;
  exact: boolean;
  method: PercentileMethod;
  lower?: number | null;
  upper?: number | null;
  relativeError?: number;
}

const sumOf = (xs: readonly number[]) => {
  let s = 0;
  for (const x of xs) s += x;
  return s;
};

export function distributionCount(d: Distribution): number {
  switch (d.form) {
    case 'raw':
      return d.values.length;
    case 'explicit':
      return sumOf(d.counts);
    case 'exponential':
      return d.zeroCount + sumOf(d.positive.bucketCounts) + sumOf(d.negative.bucketCounts);
    case 'ddsketch':
      return d.sketch.count;
  }
}

// ---- exponential histograms ----

/**
 * The lower boundary of bucket `index` at `scale`: base^index = 2^(index * 2^-scale), at most
 * the largest double (the top bucket a double maps to ends past it, at 2^1024: every value in
 * it is at most Number.MAX_VALUE).
 */
export function exponentialLowerBoundary(index: number, scale: number): number {
  return Math.min(2 ** (index / 2 ** scale), Number.MAX_VALUE);
}

/**
 * The bucket indexes a double (normal or subnormal, zero aside) maps to at `scale`, as the
 * OpenTelemetry SDK maps them: open-telemetry/opentelemetry-js sdk-metrics
 * src/aggregator/exponential-histogram/mapping ExponentMapping.ts (scale <= 0) and
 * LogarithmMapping.ts (scale > 0), _minNormalLowerBoundaryIndex (less one where mapToIndex
 * puts subnormals below it) to _maxNormalLowerBoundaryIndex, at commit 1c0e8fb5. A bucket
 * outside holds no double: its bounds are past float64's range.
 */
export function exponentialIndexRange(scale: number): [number, number] {
  const MIN_NORMAL_EXPONENT = -1022;
  const MAX_NORMAL_EXPONENT = 1023;
  if (scale > 0) {
    return [MIN_NORMAL_EXPONENT * 2 ** scale - 1, (MAX_NORMAL_EXPONENT + 1) * 2 ** scale - 1];
  }
  const shift = -scale;
  const min = Math.floor(MIN_NORMAL_EXPONENT / 2 ** shift) - (shift < 2 ? 1 : 0);
  return [min, Math.floor(MAX_NORMAL_EXPONENT / 2 ** shift)];
}

/** The buckets at a coarser scale: index i becomes i >> by (floor division, negatives too). */
function downscaleBuckets(b: ExponentialBuckets, by: number): ExponentialBuckets {
  if (by === 0 || b.bucketCounts.length === 0) {
    return { offset: b.offset, bucketCounts: [...b.bucketCounts] };
  }
  const f = 2 ** by;
  const offset = Math.floor(b.offset / f);
  const last = Math.floor((b.offset + b.bucketCounts.length - 1) / f);
  const counts = new Array<number>(last - offset + 1).fill(0);
  b.bucketCounts.forEach((c, k) => {
    const i = Math.floor((b.offset + k) / f) - offset;
    counts[i] = (counts[i] as number) + c;
  });
  return { offset, bucketCounts: counts };
}

export function downscale(d: ExponentialDistribution, scale: number): ExponentialDistribution {
  const by = d.scale - scale;
  if (by < 0)
    throw new RangeError(`cannot upscale an exponential histogram (${d.scale} -> ${scale})`);
  return {
    ...d,
    scale,
    positive: downscaleBuckets(d.positive, by),
    negative: downscaleBuckets(d.negative, by),
  };
}

/** Adds (sign 1) or subtracts (sign -1, never below zero) b's counts into a's layout. */
function combineBuckets(a: ExponentialBuckets, b: ExponentialBuckets, sign: 1 | -1) {
  if (b.bucketCounts.length === 0) return { offset: a.offset, bucketCounts: [...a.bucketCounts] };
  if (a.bucketCounts.length === 0) {
    return sign === 1
      ? { offset: b.offset, bucketCounts: [...b.bucketCounts] }
      : { offset: a.offset, bucketCounts: [] };
  }
  const offset = Math.min(a.offset, b.offset);
  const end = Math.max(a.offset + a.bucketCounts.length, b.offset + b.bucketCounts.length);
  const counts = new Array<number>(end - offset).fill(0);
  a.bucketCounts.forEach((c, k) => {
    counts[a.offset + k - offset] = c;
  });
  b.bucketCounts.forEach((c, k) => {
    const i = b.offset + k - offset;
    counts[i] = Math.max(0, (counts[i] as number) + sign * c);
  });
  return trimBuckets({ offset, bucketCounts: counts });
}

function trimBuckets(b: ExponentialBuckets): ExponentialBuckets {
  let from = 0;
  let to = b.bucketCounts.length;
  while (from < to && b.bucketCounts[from] === 0) from++;
  while (to > from && b.bucketCounts[to - 1] === 0) to--;
  if (from === to) return { offset: 0, bucketCounts: [] };
  return { offset: b.offset + from, bucketCounts: b.bucketCounts.slice(from, to) };
}

function combineExponential(
  a: ExponentialDistribution,
  b: ExponentialDistribution,
  sign: 1 | -1,
): ExponentialDistribution {
  const scale = Math.min(a.scale, b.scale);
  const x = downscale(a, scale);
  const y = downscale(b, scale);
  return {
    form: 'exponential',
    scale,
    zeroCount: Math.max(0, x.zeroCount + sign * y.zeroCount),
    // Values within either threshold were counted as zero: the wider one bounds them all.
    zeroThreshold: Math.max(x.zeroThreshold, y.zeroThreshold),
    positive: combineBuckets(x.positive, y.positive, sign),
    negative: combineBuckets(x.negative, y.negative, sign),
  };
}

// ---- explicit-bucket histograms ----

const sameBounds = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Counts on a subset of the bounds: every bucket of the subset is a union of buckets of
 * the finer layout, so the move is exact (only resolution is lost).
 */
function rebucket(bounds: readonly number[], counts: readonly number[], to: readonly number[]) {
  const out = new Array<number>(to.length + 1).fill(0);
  let j = 0;
  for (let i = 0; i < counts.length; i++) {
    const upper = i < bounds.length ? (bounds[i] as number) : Number.POSITIVE_INFINITY;
    while (j < to.length && (to[j] as number) < upper) j++;
    out[j] = (out[j] as number) + (counts[i] as number);
  }
  return out;
}

function commonBounds(lists: readonly (readonly number[])[]): number[] {
  const [first, ...rest] = lists;
  if (!first) return [];
  const sets = rest.map((l) => new Set(l));
  return first.filter((b) => sets.every((s) => s.has(b)));
}

// ---- forms as a DDSketch (only for data of mixed forms) ----

function asSketch(d: Distribution): Sketch {
  switch (d.form) {
    case 'ddsketch': {
      const s = newSketch();
      mergeInto(s, d.sketch);
      return s;
    }
    case 'raw': {
      const s = newSketch();
      for (const v of d.values) s.accept(v);
      return s;
    }
    case 'explicit':
      return sketchFromBuckets(d.bounds, d.counts);
    case 'exponential':
      return sketchFromExponential(d);
  }
}

/** Whether a DDSketch of these forms keeps its relative accuracy (raw values and sketches). */
const sketchBounded = (d: Distribution) =>
  d.form === 'raw' || (d.form === 'ddsketch' && !d.unbounded);

// ---- merge and subtract ----

/**
 * One distribution of many (null when there are none). Exact within a form: raw values
 * concatenated, explicit buckets added (on their common bounds when layouts differ),
 * exponential buckets added at the coarsest scale, sketches merged bin by bin. Raw values
 * with sketches become a sketch; bucket forms mixed with others become a sketch without a
 * bound. The inputs are never changed.
 */
export function mergeDistributions(
  list: Iterable<Distribution | null | undefined>,
): Distribution | null {
  const all: Distribution[] = [];
  for (const d of list) if (d) all.push(d);
  const first = all[0];
  if (!first) return null;
  if (all.length === 1) return first;
  const form = first.form;
  if (all.every((d) => d.form === form)) {
    if (form === 'raw') {
      const values: number[] = [];
      for (const d of all) for (const v of (d as { values: number[] }).values) values.push(v);
      if (values.length <= MERGED_RAW_LIMIT) return { form: 'raw', values };
      const s = newSketch();
      for (const v of values) s.accept(v);
      return { form: 'ddsketch', sketch: s };
    }
    if (form === 'explicit') {
      const hs = all as Extract<Distribution, { form: 'explicit' }>[];
      const h0 = hs[0] as (typeof hs)[number];
      const bounds = hs.every((h) => sameBounds(h.bounds, h0.bounds))
        ? h0.bounds
        : commonBounds(hs.map((h) => h.bounds));
      const counts = new Array<number>(bounds.length + 1).fill(0);
      for (const h of hs) {
        const c = h.bounds === bounds ? h.counts : rebucket(h.bounds, h.counts, bounds);
        for (let i = 0; i < c.length; i++) counts[i] = (counts[i] as number) + (c[i] as number);
      }
      return { form: 'explicit', bounds: [...bounds], counts };
    }
    if (form === 'exponential') {
      let out = all[0] as ExponentialDistribution;
      for (let i = 1; i < all.length; i++) {
        out = combineExponential(out, all[i] as ExponentialDistribution, 1);
      }
      return out;
    }
  }
  const s = newSketch();
  for (const d of all) mergeInto(s, d.form === 'ddsketch' ? d.sketch : asSketch(d));
  return all.every(sketchBounded)
    ? { form: 'ddsketch', sketch: s }
    : { form: 'ddsketch', sketch: s, unbounded: true };
}

/**
 * What was recorded between two cumulative points of one stream (later minus earlier,
 * bucket by bucket, never below zero): OpenTelemetry's cumulative-to-delta.
 */
export function subtractDistribution(later: Distribution, earlier: Distribution): Distribution {
  if (later.form === 'explicit' && earlier.form === 'explicit') {
    const bounds = sameBounds(later.bounds, earlier.bounds)
      ? later.bounds
      : commonBounds([later.bounds, earlier.bounds]);
    const a = later.bounds === bounds ? later.counts : rebucket(later.bounds, later.counts, bounds);
    const b =
      earlier.bounds === bounds ? earlier.counts : rebucket(earlier.bounds, earlier.counts, bounds);
    return {
      form: 'explicit',
      bounds: [...bounds],
      counts: a.map((c, i) => Math.max(0, c - (b[i] ?? 0))),
    };
  }
  if (later.form === 'exponential' && earlier.form === 'exponential') {
    return combineExponential(later, earlier, -1);
  }
  if (later.form === 'raw' && earlier.form === 'raw') {
    const a = [...later.values].sort((x, y) => x - y);
    const b = [...earlier.values].sort((x, y) => x - y);
    const values: number[] = [];
    let j = 0;
    for (const v of a) {
      while (j < b.length && (b[j] as number) < v) j++;
      if (j < b.length && b[j] === v) j++;
      else values.push(v);
    }
    return { form: 'raw', values };
  }
  const out = subtractSketch(asSketch(later), asSketch(earlier));
  return sketchBounded(later) && sketchBounded(earlier)
    ? { form: 'ddsketch', sketch: out }
    : { form: 'ddsketch', sketch: out, unbounded: true };
}

// ---- percentiles ----

interface StoreLike {
  bins: number[];
  count: number;
  minKey: number;
  maxKey: number;
  offset: number;
}
interface SketchInternals {
  store: StoreLike;
  negativeStore: StoreLike;
  zeroCount: number;
  mapping: { gamma: number; value(key: number): number };
}

/** The relative accuracy a sketch's mapping guarantees: (gamma - 1) / (gamma + 1). */
export function sketchRelativeAccuracy(sketch: Sketch): number {
  const { gamma } = (sketch as unknown as SketchInternals).mapping;
  // Rounded up at the 12th digit: 0.01 stays 0.01, never a hair under the true bound.
  return Math.ceil(((gamma - 1) / (gamma + 1)) * 1e12) / 1e12;
}

/** The sketch's value at a 1-based rank (the library's own quantile uses a lower rank). */
function sketchAtRank(sketch: Sketch, rank: number): number {
  const s = sketch as unknown as SketchInternals;
  let r = rank;
  const neg = s.negativeStore;
  if (r <= neg.count) {
    let acc = 0;
    for (let key = neg.maxKey; key >= neg.minKey; key--) {
      acc += neg.bins[key - neg.offset] ?? 0;
      if (acc >= r) return -s.mapping.value(key);
    }
  }
  r -= neg.count;
  if (r <= s.zeroCount) return 0;
  r -= s.zeroCount;
  const pos = s.store;
  let acc = 0;
  for (let key = pos.minKey; key <= pos.maxKey; key++) {
    acc += pos.bins[key - pos.offset] ?? 0;
    if (acc >= r) return s.mapping.value(key);
  }
  return s.mapping.value(pos.maxKey);
}

/**
 * The exponential buckets in value order, as [lower, upper, count]: negative buckets from
 * the most negative, the zero bucket, then the positive ones.
 */
function exponentialBucketsInOrder(d: ExponentialDistribution): [number, number, number][] {
  const out: [number, number, number][] = [];
  const n = d.negative;
  for (let k = n.bucketCounts.length - 1; k >= 0; k--) {
    const c = n.bucketCounts[k] as number;
    if (c > 0) {
      const i = n.offset + k;
      out.push([
        -exponentialLowerBoundary(i + 1, d.scale),
        -exponentialLowerBoundary(i, d.scale),
        c,
      ]);
    }
  }
  if (d.zeroCount > 0) out.push([-d.zeroThreshold, d.zeroThreshold, d.zeroCount]);
  const p = d.positive;
  p.bucketCounts.forEach((c, k) => {
    if (c > 0) {
      const i = p.offset + k;
      out.push([exponentialLowerBoundary(i, d.scale), exponentialLowerBoundary(i + 1, d.scale), c]);
    }
  });
  return out;
}

/**
 * SDKs place a value into its bucket with a logarithm, which the specification allows to
 * be off by one next to a boundary; the stated bounds are widened by this fraction so that
 * such a value still lies inside them.
 */
const BOUNDARY_SLACK = 1e-12;
const widenDown = (x: number) => Math.max(x - Math.abs(x) * BOUNDARY_SLACK, -Number.MAX_VALUE);
const widenUp = (x: number) => Math.min(x + Math.abs(x) * BOUNDARY_SLACK, Number.MAX_VALUE);

export interface KnownRange {
  /**
   * The smallest and largest value of exactly these values, when the source says (OTLP
   * min/max of the interval): they bound a percentile and anchor the interpolation inside
   * its bucket.
   */
  min?: number | null;
  max?: number | null;
  /**
   * Only bounds: every value is at least `lowerBound` and at most `upperBound` (a cumulative
   * stream's min and max since its start, when the run's own are not known). They narrow a
   * percentile's [lower, upper] but are never interpolated toward: an estimate in an
   * open-ended bucket stays at the bucket's closed side, its bound saying how far it may be.
   */
  lowerBound?: number | null;
  upperBound?: number | null;
}

/** The lowest and highest every value can be: the exact extremes, else the bounds. */
const floorOf = (r: KnownRange) =>
  r.min != null ? r.min : r.lowerBound != null ? r.lowerBound : null;
const ceilingOf = (r: KnownRange) =>
  r.max != null ? r.max : r.upperBound != null ? r.upperBound : null;

const clamp = (v: number, r: KnownRange) => {
  let x = v;
  const lo = floorOf(r);
  const hi = ceilingOf(r);
  if (lo !== null && x < lo) x = lo;
  if (hi !== null && x > hi) x = hi;
  return x;
};

/**
 * The nearest-rank percentile p (0, 100] (the value at rank ceil(p/100 * n)), with how it
 * was obtained and how far the true nearest-rank value can be from it. Null when empty, or
 * when nothing bounds the value (an explicit histogram's only bucket, extremes unknown).
 */
export function percentileOf(
  d: Distribution,
  p: number,
  range: KnownRange = {},
  sortedRaw?: readonly number[],
): DistributionPercentile | null {
  const n = distributionCount(d);
  if (!(n > 0)) return null;
  const rank = nearestRank(p, n);
  switch (d.form) {
    case 'raw': {
      const sorted = sortedRaw ?? [...d.values].sort((a, b) => a - b);
      return { p, value: sorted[rank - 1] as number, exact: true, method: 'raw' };
    }
    case 'ddsketch': {
      const value = clamp(sketchAtRank(d.sketch, rank), range);
      if (d.unbounded) {
        return { p, value, exact: false, method: 'ddsketch', lower: null, upper: null };
      }
      return {
        p,
        value,
        exact: false,
        method: 'ddsketch',
        relativeError: sketchRelativeAccuracy(d.sketch),
      };
    }
    case 'exponential': {
      let acc = 0;
      const buckets = exponentialBucketsInOrder(d);
      for (const [lo, hi, c] of buckets) {
        acc += c;
        if (acc < rank) continue;
        const isZero = lo <= 0 && hi >= 0;
        let lower = widenDown(lo);
        let upper = widenUp(hi);
        const floor = floorOf(range);
        const ceiling = ceilingOf(range);
        if (floor !== null && floor > lower) lower = floor;
        if (ceiling !== null && ceiling < upper) upper = ceiling;
        // The geometric middle of the bucket: the least relative error for any value in it.
        // (Each root apart: lo * hi is past float64's range at its ends.)
        const mid = isZero ? 0 : Math.sign(lo) * Math.sqrt(Math.abs(lo)) * Math.sqrt(Math.abs(hi));
        const value = Math.min(upper, Math.max(lower, mid));
        return { p, value, exact: false, method: 'exponential-histogram', lower, upper };
      }
      return null;
    }
    case 'explicit': {
      let acc = 0;
      for (let i = 0; i < d.counts.length; i++) {
        const c = d.counts[i] as number;
        if (!(c > 0)) continue;
        const before = acc;
        acc += c;
        if (acc < rank) continue;
        // The bucket, narrowed by the exact extremes: what the value is interpolated in.
        let from: number | null = i === 0 ? null : (d.bounds[i - 1] as number);
        let to: number | null = i >= d.bounds.length ? null : (d.bounds[i] as number);
        if (range.min != null && (from === null || range.min > from)) from = range.min;
        if (range.max != null && (to === null || range.max < to)) to = range.max;
        // Linear inside the bucket: the k-th of c values is placed k/c of the way up. In an
        // open-ended bucket, its closed side.
        let value: number | null;
        if (from !== null && to !== null) {
          value = Math.min(to, from + ((to - from) * (rank - before)) / c);
        } else {
          value = from ?? to;
        }
        // What the true value lies in: that, narrowed further by bounds that are not the
        // values' own extremes (never stretched toward).
        let lower = from;
        let upper = to;
        if (range.lowerBound != null && (lower === null || range.lowerBound > lower)) {
          lower = range.lowerBound;
        }
        if (range.upperBound != null && (upper === null || range.upperBound < upper)) {
          upper = range.upperBound;
        }
        // A bucket open on both sides (a histogram without finite bounds: a classic family of
        // `le="+Inf"` alone, an OTLP histogram without explicit_bounds) and no extreme known:
        // the side a bound gives, else no value at all.
        if (value === null) value = lower ?? upper;
        if (value === null) return null;
        if (lower !== null && value < lower) value = lower;
        if (upper !== null && value > upper) value = upper;
        return { p, value, exact: false, method: 'explicit-histogram', lower, upper };
      }
      return null;
    }
  }
}

/** Several percentiles of one distribution (raw values sorted once). */
export function percentilesOf(
  d: Distribution,
  ps: readonly number[],
  range: KnownRange = {},
): DistributionPercentile[] {
  const sorted = d.form === 'raw' ? [...d.values].sort((a, b) => a - b) : undefined;
  const out: DistributionPercentile[] = [];
  for (const p of ps) {
    const q = percentileOf(d, p, range, sorted);
    if (q) out.push(q);
  }
  return out;
}

// ---- storage ----

/**
 * Stored as bytes with a leading form byte. Bytes from before this encoding are DDSketch
 * protobuf, whose first byte is a field tag (0x0a, 0x12, 0x1a or 0x21), never 1-5.
 */
const FORM_RAW = 1;
const FORM_EXPLICIT = 2;
const FORM_EXPONENTIAL = 3;
const FORM_DDSKETCH = 4;
const FORM_DDSKETCH_UNBOUNDED = 5;

export function encodeDistribution(d: Distribution): Uint8Array {
  switch (d.form) {
    case 'raw': {
      const out = Buffer.allocUnsafe(1 + 8 * d.values.length);
      out[0] = FORM_RAW;
      for (let i = 0; i < d.values.length; i++) out.writeDoubleLE(d.values[i] as number, 1 + 8 * i);
      return out;
    }
    case 'explicit': {
      const nb = d.bounds.length;
      const out = Buffer.allocUnsafe(1 + 4 + 8 * (2 * nb + 1));
      out[0] = FORM_EXPLICIT;
      out.writeUInt32LE(nb, 1);
      let at = 5;
      for (const b of d.bounds) at = out.writeDoubleLE(b, at);
      for (let i = 0; i <= nb; i++) at = out.writeDoubleLE(d.counts[i] ?? 0, at);
      return out;
    }
    case 'exponential': {
      const np = d.positive.bucketCounts.length;
      const nn = d.negative.bucketCounts.length;
      const out = Buffer.allocUnsafe(1 + 1 + 16 + 16 + 8 * (np + nn));
      out[0] = FORM_EXPONENTIAL;
      let at = out.writeInt8(d.scale, 1);
      at = out.writeDoubleLE(d.zeroCount, at);
      at = out.writeDoubleLE(d.zeroThreshold, at);
      for (const b of [d.positive, d.negative]) {
        at = out.writeInt32LE(b.offset, at);
        at = out.writeUInt32LE(b.bucketCounts.length, at);
        for (const c of b.bucketCounts) at = out.writeDoubleLE(c, at);
      }
      return out;
    }
    case 'ddsketch': {
      const body = encodeSketch(d.sketch);
      const out = Buffer.allocUnsafe(1 + body.length);
      out[0] = d.unbounded ? FORM_DDSKETCH_UNBOUNDED : FORM_DDSKETCH;
      out.set(body, 1);
      return out;
    }
  }
}

export function decodeDistribution(bytes: Uint8Array): Distribution {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (buf[0]) {
    case FORM_RAW: {
      const n = (buf.length - 1) / 8;
      const values = new Array<number>(n);
      for (let i = 0; i < n; i++) values[i] = buf.readDoubleLE(1 + 8 * i);
      return { form: 'raw', values };
    }
    case FORM_EXPLICIT: {
      const nb = buf.readUInt32LE(1);
      let at = 5;
      const bounds: number[] = [];
      for (let i = 0; i < nb; i++, at += 8) bounds.push(buf.readDoubleLE(at));
      const counts: number[] = [];
      for (let i = 0; i <= nb; i++, at += 8) counts.push(buf.readDoubleLE(at));
      return { form: 'explicit', bounds, counts };
    }
    case FORM_EXPONENTIAL: {
      const scale = buf.readInt8(1);
      const zeroCount = buf.readDoubleLE(2);
      const zeroThreshold = buf.readDoubleLE(10);
      let at = 18;
      const side = (): ExponentialBuckets => {
        const offset = buf.readInt32LE(at);
        const n = buf.readUInt32LE(at + 4);
        at += 8;
        const bucketCounts: number[] = [];
        for (let i = 0; i < n; i++, at += 8) bucketCounts.push(buf.readDoubleLE(at));
        return { offset, bucketCounts };
      };
      const positive = side();
      const negative = side();
      return { form: 'exponential', scale, zeroCount, zeroThreshold, positive, negative };
    }
    case FORM_DDSKETCH:
      return { form: 'ddsketch', sketch: decodeSketch(buf.subarray(1)) };
    case FORM_DDSKETCH_UNBOUNDED:
      return { form: 'ddsketch', sketch: decodeSketch(buf.subarray(1)), unbounded: true };
    default:
      return { form: 'ddsketch', sketch: decodeSketch(buf) };
  }
}

/** Stored bytes or an already decoded distribution, as a distribution. */
export const asDistribution = (x: Uint8Array | Distribution): Distribution =>
  x instanceof Uint8Array ? decodeDistribution(x) : x;
