// Nearest-rank percentiles from a load generator's own histogram buckets (Fortio's
// DurationHistogram.Data), with the bucket's bounds: the rank is exact, the value only
// known to lie in the bucket, so it is estimated by linear interpolation inside it.
import type { HistogramBin, PercentileValue } from '@meshbench/schema';
import { nearestRank } from './nearest-rank.ts';

// The one nearest-rank definition, for the callers that read buckets.
export { nearestRank };

/**
 * The p-th percentile (0 < p <= 100) of the values a histogram counts, or null when it
 * counts none. Buckets are [fromMs, toMs] in ascending order; the bounds returned are those
 * of the bucket the rank falls in (Fortio's first bucket starts at the minimum and its last
 * ends at the maximum, so P100 and the lowest rank there are bounded by them).
 */
export function percentileFromBuckets(bins: HistogramBin[], p: number): PercentileValue | null {
  const total = bins.reduce((n, b) => n + b.count, 0);
  if (total === 0) return null;
  const rank = nearestRank(p, total);
  let below = 0;
  for (const b of bins) {
    if (b.count > 0 && below + b.count >= rank) {
      const lower = b.fromMs;
      const upper = b.toMs;
      // The rank's place among the bucket's values, spread evenly over [lower, upper].
      const ms = lower + ((rank - below) / b.count) * (upper - lower);
      return { p, ms, exact: lower === upper, method: 'tool-histogram', lower, upper };
    }
    below += b.count;
  }
  return null;
}

/**
 * A result's percentiles with each requested one the source lacks computed from its
 * histogram, ascending by p. What the source stated is kept as it is.
 */
export function withRequestedPercentiles(
  stated: PercentileValue[],
  histogram: HistogramBin[] | null,
  requested: number[],
): PercentileValue[] {
  if (requested.length === 0 || !histogram || histogram.length === 0) return stated;
  const have = new Set(stated.map((x) => x.p));
  const added = [...new Set(requested)]
    .filter((p) => !have.has(p))
    .map((p) => percentileFromBuckets(histogram, p))
    .filter((x): x is PercentileValue => x !== null);
  return added.length === 0 ? stated : [...stated, ...added].sort((a, b) => a.p - b.p);
}
