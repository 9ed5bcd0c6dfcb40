// Histogram and ExponentialHistogram data points as records that keep their layout:
// explicit bounds and counts, or the exponential scale, zero count, zero threshold and
// buckets (metrics.proto v1.5: HistogramDataPoint, ExponentialHistogramDataPoint). A layout
// the data model forbids is refused as a whole request (OtlpDecodeError) naming the metric,
// the point and the field; a point without temporality alone.
import { encodeDistribution, exponentialIndexRange } from '../../domain/distribution.ts';
import type { MetricRecord } from '../../domain/metric-record.ts';
import {
  type ExpBuckets,
  type ExpHistogramPoint,
  type HistogramPoint,
  type Metric,
  OtlpDecodeError,
} from './otlp-message.ts';
import { CUMULATIVE, DELTA, num, optNum, temporality } from './otlp-values.ts';

/** Scales the data model allows an exponential histogram (metrics.proto: -10 to 20). */
export const EXPONENTIAL_SCALE_RANGE = [-10, 20] as const;

export function histogramPoint(
  hp: HistogramPoint,
  base: MetricRecord,
  histogram: NonNullable<Metric['histogram']>,
  startMs: number | null,
  index: number,
): string | null {
  const t = temporality(histogram.aggregationTemporality);
  if (t !== CUMULATIVE && t !== DELTA) return noTemporality(base.name);
  const layout = explicitLayout(hp, `histogram "${base.name}" dataPoints[${index}]`);
  place(hp, base, 'histogram', layout, t, startMs);
  return null;
}

export function exponentialHistogramPoint(
  hp: ExpHistogramPoint,
  base: MetricRecord,
  histogram: NonNullable<Metric['exponentialHistogram']>,
  startMs: number | null,
  index: number,
): string | null {
  const t = temporality(histogram.aggregationTemporality);
  if (t !== CUMULATIVE && t !== DELTA) return noTemporality(base.name);
  const layout = exponentialLayout(hp, `exponentialHistogram "${base.name}" dataPoints[${index}]`);
  place(hp, base, 'exponential_histogram', layout, t, startMs);
  return null;
}

const noTemporality = (name: string) => `histogram "${name}" has no aggregation temporality`;

/** Count, sum, min, max and layout; a cumulative point's start, a delta's interval. */
function place(
  hp: HistogramPoint,
  base: MetricRecord,
  kind: 'histogram' | 'exponential_histogram',
  layout: Uint8Array | null,
  t: number,
  startMs: number | null,
): void {
  base.kind = kind;
  base.count = num(hp.count);
  base.sum = optNum(hp.sum);
  base.min = optNum(hp.min);
  base.max = optNum(hp.max);
  base.sketch = layout;
  base.startAtMs = t === CUMULATIVE ? (startMs ?? 0) : null;
  if (t === DELTA && startMs !== null) {
    base.intervalMs = base.tMs - startMs;
    base.tMs = startMs;
  }
}

const invalid = (at: string, what: string) => new OtlpDecodeError(`${at}: ${what}`);

/** An explicit-bucket point's bounds and counts, checked; null when it has no buckets. */
function explicitLayout(hp: HistogramPoint, at: string): Uint8Array | null {
  const counts = (hp.bucketCounts ?? []).map(num);
  const bounds = (hp.explicitBounds ?? []).map(Number);
  if (counts.length === 0 && bounds.length === 0) return null;
  if (counts.length !== bounds.length + 1) {
    throw invalid(
      at,
      `bucketCounts has ${counts.length} entries for ${bounds.length} explicitBounds (must be ${bounds.length + 1})`,
    );
  }
  for (let i = 0; i < bounds.length; i++) {
    const b = bounds[i] as number;
    if (!Number.isFinite(b)) throw invalid(at, `explicitBounds[${i}] is not a finite number`);
    if (i > 0 && !(b > (bounds[i - 1] as number))) {
      throw invalid(
        at,
        `explicitBounds must be strictly increasing (explicitBounds[${i}] = ${b} after ${bounds[i - 1]})`,
      );
    }
  }
  counts.forEach((c, i) => {
    if (!(c >= 0)) throw invalid(at, `bucketCounts[${i}] is not a count`);
  });
  return encodeDistribution({ form: 'explicit', bounds, counts });
}

/** An exponential point's scale, zero bucket and buckets, checked and kept as laid out. */
function exponentialLayout(hp: ExpHistogramPoint, at: string): Uint8Array {
  const scale = hp.scale ?? 0;
  const [lo, hi] = EXPONENTIAL_SCALE_RANGE;
  if (!Number.isInteger(scale) || scale < lo || scale > hi) {
    throw invalid(at, `scale ${scale} is outside [${lo}, ${hi}]`);
  }
  const zeroCount = num(hp.zeroCount);
  if (!(zeroCount >= 0)) throw invalid(at, 'zeroCount is not a count');
  const zeroThreshold = optNum(hp.zeroThreshold) ?? 0;
  if (!(zeroThreshold >= 0) || !Number.isFinite(zeroThreshold)) {
    throw invalid(at, 'zeroThreshold is not a finite number >= 0');
  }
  const side = (b: ExpBuckets | null | undefined, field: 'positive' | 'negative') => {
    if (!b) return { offset: 0, bucketCounts: [] };
    const offset = b.offset ?? 0;
    if (!Number.isInteger(offset)) throw invalid(at, `${field}.offset is not an integer`);
    const bucketCounts = (b.bucketCounts ?? []).map(num);
    bucketCounts.forEach((c, i) => {
      if (!(c >= 0)) throw invalid(at, `${field}.bucketCounts[${i}] is not a count`);
    });
    // Only the buckets a double maps to: past them a bucket's bounds are past float64's range.
    const [first, last] = exponentialIndexRange(scale);
    if (bucketCounts.length > 0 && (offset < first || offset + bucketCounts.length - 1 > last)) {
      throw invalid(
        at,
        `${field}.offset ${offset} with ${bucketCounts.length} buckets reaches past the buckets a double maps to at scale ${scale} (${first} to ${last})`,
      );
    }
    return { offset, bucketCounts };
  };
  return encodeDistribution({
    form: 'exponential',
    scale,
    zeroCount,
    zeroThreshold,
    positive: side(hp.positive, 'positive'),
    negative: side(hp.negative, 'negative'),
  });
}
