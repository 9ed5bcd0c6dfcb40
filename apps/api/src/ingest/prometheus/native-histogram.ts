// A Prometheus native histogram as a distribution with its layout kept: an exponential
// schema (-4..8) as the exponential form at scale = schema, a custom-buckets schema (-53) as
// the explicit form with its bounds. Checked as upstream's Histogram.Validate does
// (prometheus/prometheus model/histogram/histogram.go at d15adb9a): spans cover the
// buckets, counts are never negative, and the count equals the buckets' total (at least it,
// when the sum is NaN: NaN observations are in no bucket). Layouts per
// prompb/io/prometheus/write/v2/types.proto: deltas (integer histograms) or absolute
// counts (float histograms), the first span's offset is the first bucket's index and each
// later one the gap after the span before.
// Bucket indexes: Prometheus' bucket i holds (base^(i-1), base^i], OpenTelemetry's bucket i
// (the exponential form, domain/distribution.ts) holds (base^i, base^(i+1)]: the same
// bucket is index i here and i - 1 there.
import {
  type Distribution,
  type ExponentialBuckets,
  exponentialIndexRange,
} from '../../domain/distribution.ts';
import type { BucketSpan, WireHistogram } from './remote-write-reader.ts';

/** The schema of custom bucket bounds (custom_values). */
export const CUSTOM_BUCKETS_SCHEMA = -53;
export const EXPONENTIAL_SCHEMAS = [-4, 8] as const;

/** Absolute bucket counts of one side, from deltas (integer) or counts (float). */
function counts(deltas: number[], absolute: number[], isFloat: boolean, side: string): number[] {
  if (deltas.length > 0 && absolute.length > 0) {
    throw new Error(`${side} has both deltas and counts`);
  }
  if (absolute.length > 0) {
    if (!isFloat) throw new Error(`${side} has float counts in an integer histogram`);
    for (const c of absolute) if (!(c >= 0)) throw new Error(`${side} has a negative count`);
    return absolute;
  }
  const out = new Array<number>(deltas.length);
  let c = 0;
  for (let i = 0; i < deltas.length; i++) {
    c += deltas[i] as number;
    if (c < 0) throw new Error(`${side} bucket ${i} has a negative count`);
    out[i] = c;
  }
  return out;
}

/** The buckets as {index, count}, by the spans. */
function place(
  spans: BucketSpan[],
  buckets: number[],
  side: string,
  /** Prometheus bucket indexes the schema's doubles map to; none past them is laid out. */
  range: [number, number] | null = null,
): ExponentialBuckets {
  let total = 0;
  let gaps = 0;
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i] as BucketSpan;
    if (i > 0 && s.offset < 0) throw new Error(`${side} span ${i} has a negative offset`);
    if (i > 0) gaps += s.offset;
    total += s.length;
  }
  if (total !== buckets.length) {
    throw new Error(`${side} spans cover ${total} buckets, but ${buckets.length} are sent`);
  }
  if (buckets.length === 0) return { offset: 0, bucketCounts: [] };
  if (range) {
    const from = (spans[0] as BucketSpan).offset;
    const to = from + gaps + total - 1;
    if (from < range[0] || to > range[1]) {
      throw new Error(
        `${side} spans reach buckets ${from} to ${to}, past the ones a double maps to (${range[0]} to ${range[1]})`,
      );
    }
  }
  // Dense from the first bucket to the last, gaps as zero.
  const first = (spans[0] as BucketSpan).offset;
  const dense: number[] = [];
  let at = 0;
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i] as BucketSpan;
    if (i > 0) for (let g = 0; g < s.offset; g++) dense.push(0);
    for (let k = 0; k < s.length; k++) dense.push(buckets[at++] as number);
  }
  return { offset: first, bucketCounts: dense };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The histogram's distribution, or an Error saying what is wrong with it. */
export function nativeDistribution(h: WireHistogram): Distribution {
  const pos = counts(h.positiveDeltas, h.positiveCounts, h.countIsFloat, 'positive side');
  const neg = counts(h.negativeDeltas, h.negativeCounts, h.countIsFloat, 'negative side');
  let d: Distribution;
  let inBuckets: number;
  if (h.schema === CUSTOM_BUCKETS_SCHEMA) {
    const bounds = h.customValues;
    bounds.forEach((b, i) => {
      if (Number.isNaN(b) || b === Number.POSITIVE_INFINITY || b === Number.NEGATIVE_INFINITY) {
        throw new Error(`custom_values[${i}] is not a finite number`);
      }
      if (i > 0 && !(b > (bounds[i - 1] as number))) {
        throw new Error(`custom_values must be strictly increasing (custom_values[${i}] = ${b})`);
      }
    });
    if (h.zeroCount !== 0 || h.zeroThreshold !== 0) {
      throw new Error('a custom-buckets histogram has a zero bucket');
    }
    if (h.negativeSpans.length > 0 || neg.length > 0) {
      throw new Error('a custom-buckets histogram has negative buckets');
    }
    const placed = place(h.positiveSpans, pos, 'positive side', [0, bounds.length]);
    const dense = new Array<number>(bounds.length + 1).fill(0);
    placed.bucketCounts.forEach((c, i) => {
      const index = placed.offset + i;
      if (index < 0 || index > bounds.length) {
        throw new Error(`bucket ${index} is outside the ${bounds.length + 1} custom buckets`);
      }
      dense[index] = c;
    });
    d = { form: 'explicit', bounds: [...bounds], counts: dense };
    inBuckets = sum(dense);
  } else if (h.schema >= EXPONENTIAL_SCHEMAS[0] && h.schema <= EXPONENTIAL_SCHEMAS[1]) {
    if (h.customValues.length > 0) {
      throw new Error('an exponential histogram has custom_values');
    }
    if (!(h.zeroThreshold >= 0) || h.zeroThreshold === Number.POSITIVE_INFINITY) {
      throw new Error('zero_threshold is not a finite number >= 0');
    }
    if (!(h.zeroCount >= 0)) throw new Error('zero_count is negative');
    // Prometheus index i is OpenTelemetry index i - 1 (see the header).
    const [first, last] = exponentialIndexRange(h.schema);
    const range: [number, number] = [first + 1, last + 1];
    const positive = place(h.positiveSpans, pos, 'positive side', range);
    const negative = place(h.negativeSpans, neg, 'negative side', range);
    positive.offset -= 1;
    negative.offset -= 1;
    d = {
      form: 'exponential',
      scale: h.schema,
      zeroCount: h.zeroCount,
      zeroThreshold: h.zeroThreshold,
      positive,
      negative,
    };
    inBuckets = sum(pos) + sum(neg) + h.zeroCount;
  } else {
    throw new Error(
      `schema ${h.schema} is neither ${CUSTOM_BUCKETS_SCHEMA} (custom buckets) nor in [${EXPONENTIAL_SCHEMAS.join(', ')}]`,
    );
  }
  if (!(h.count >= 0)) throw new Error('the count is negative');
  const tolerance = h.countIsFloat ? 1e-9 * Math.max(1, h.count) : 0;
  if (Number.isNaN(h.sum)) {
    if (inBuckets > h.count + tolerance) {
      throw new Error(`${inBuckets} observations are in buckets, but the count is ${h.count}`);
    }
  } else if (Math.abs(inBuckets - h.count) > tolerance) {
    throw new Error(`${inBuckets} observations are in buckets, but the count is ${h.count}`);
  }
  return d;
}
