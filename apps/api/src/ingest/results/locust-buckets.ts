// What Locust's rounded response times allow us to say about a true latency: the range of
// raw values a bucket key stands for, the bound of a percentile Locust printed, and nearest-
// rank percentiles recomputed from its bucket counts.
// Follows locustio/locust at 407343d0f5ab84a32f41f6f9a7c991188d10a55a (and the tags named):
// locust/stats.py bucket_response_time (before 3b62e869 inline in StatsEntry._log_response_time):
// under 100 ms round() to a whole ms, under 1 s round(t, -1), under 10 s round(t, -2), else
// round(t, -3) ("about two significant digits"); up to 0.13 (before 48d94fc7) values under
// 100 ms were kept unrounded and the CSV printed them with "%i" (truncated).
// calculate_response_time_percentile: int(N * p) requests may lie above the answer, walked
// from the top key down, so Locust's rank is floor(N p) + 1 (at most N), one above the
// nearest rank ceil(N p) whenever N p is whole. median_from_dict: the key holding 0-based
// index (N - 1) / 2, i.e. rank ceil(N / 2) (nearest rank), clamped into [min, max].
import type { HistogramBin, PercentileValue } from '@meshbench/schema';
import { percentileFromBuckets } from '../../domain/bucket-percentiles.ts';

/** Which rounding wrote the keys: `legacy` is Locust <= 0.13 (no rounding under 100 ms, "%i"). */
export type LocustRounding = 'round' | 'legacy';

/** Half the step of the decade a raw value t falls in (round(t, -d) moves t by at most this). */
function halfStep(t: number): number {
  if (t < 100) return 0.5;
  if (t < 1000) return 5;
  if (t < 10000) return 50;
  return 500;
}

/**
 * The raw response times (ms) that Locust can have written as key k: [lower, upper], both
 * closed (Python's round() is round-half-even, so a tie may go either way). A key at a decade
 * start (100, 1000, 10000) also takes the values just below it rounded up by the finer rule.
 */
export function bucketRange(k: number, rounding: LocustRounding): { lower: number; upper: number } {
  if (rounding === 'legacy' && k < 100) {
    // Kept as measured, then truncated to whole ms by "%i".
    return { lower: k, upper: k + 1 };
  }
  const upper = k + halfStep(k);
  const below = k === 100 || k === 1000 || k === 10000 ? halfStep(k - 1) : halfStep(k);
  // Legacy never rounds a value under 100 up to 100.
  const lower = rounding === 'legacy' && k === 100 ? 100 : Math.max(0, k - below);
  return { lower, upper };
}

/** p as an exact decimal: digits and the power of ten under them ("99.9" -> 999 / 10^3 of 100). */
function decimalOf(pct: string): { num: bigint; den: bigint } | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(pct);
  if (!m) return null;
  const frac = m[2] ?? '';
  return { num: BigInt(`${m[1]}${frac}`), den: 100n * 10n ** BigInt(frac.length) };
}

/**
 * The bound on the true nearest-rank p-th percentile of n timed requests, given the value k
 * Locust printed for it (a bucket key, at Locust's own rank). When Locust's rank is the nearest
 * rank (N p not whole, or p = 100), the true value lies in k's bucket; when N p is whole Locust
 * took the next rank up, so the true value is at most k's bucket top and at least the minimum.
 * `minMs`/`maxMs` are the run's own extremes (exact, or truncated by "%i": pass the ceiling).
 */
export function reportedPercentile(
  pct: string,
  k: number,
  n: number,
  rounding: LocustRounding,
  minMs: number | null,
  maxMs: number | null,
): PercentileValue | null {
  const d = decimalOf(pct);
  if (!d || n <= 0) return null;
  const p = Number(pct);
  if (!(p > 0 && p <= 100)) return null;
  const { lower: bl, upper: bu } = bucketRange(k, rounding);
  const whole = (BigInt(n) * d.num) % d.den === 0n;
  const sameRank = !whole || p === 100;
  const lower = Math.max(sameRank ? bl : 0, minMs ?? 0);
  const upper = Math.max(lower, maxMs === null ? bu : Math.min(bu, maxMs));
  // Locust's key may lie past the run's extremes (a 180 key for a 178.03 ms max): the value is
  // moved into its bound, as Locust's own median is clamped into [min, max].
  return {
    p,
    ms: Math.min(Math.max(k, lower), upper),
    exact: false,
    method: 'tool-histogram',
    lower,
    upper,
  };
}

/** The median Locust printed (the nearest rank's key, clamped into [min, max]) with its bound. */
export function reportedMedian(
  k: number,
  rounding: LocustRounding,
  minMs: number | null,
  maxMs: number | null,
): PercentileValue {
  const { lower: bl, upper: bu } = bucketRange(k, rounding);
  // Locust clamps the median into [min, max] itself, so k may be the min or max rather than a
  // key: the true value is then in both the key's range and [min, max], k at its edge.
  const lower = Math.min(Math.max(bl, minMs ?? 0), k);
  const upper = Math.max(maxMs === null ? bu : Math.min(bu, maxMs), k);
  return { p: 50, ms: k, exact: false, method: 'tool-histogram', lower, upper };
}

/**
 * Locust's {key: count} buckets as histogram bins: each key's raw range, cut to the run's
 * exact [min, max] when known. Keys ascending; empty keys dropped.
 */
export function bucketBins(
  counts: ReadonlyMap<number, number>,
  rounding: LocustRounding,
  minMs: number | null,
  maxMs: number | null,
): HistogramBin[] {
  return [...counts.entries()]
    .filter(([, c]) => c > 0)
    .sort((a, b) => a[0] - b[0])
    .map(([k, count]) => {
      const { lower, upper } = bucketRange(k, rounding);
      const fromMs = minMs === null ? lower : Math.min(Math.max(lower, minMs), upper);
      const toMs = maxMs === null ? upper : Math.max(Math.min(upper, maxMs), fromMs);
      return { fromMs, toMs, count };
    });
}

/** Nearest-rank percentiles from the bins, each with its bin as the bound (the shared rule). */
export function percentilesFromBins(
  bins: HistogramBin[],
  ps: readonly number[],
): PercentileValue[] {
  return ps
    .map((p) => percentileFromBuckets(bins, p))
    .filter((x): x is PercentileValue => x !== null);
}
