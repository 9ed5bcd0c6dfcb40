// The bootstrap distribution of a nearest-rank percentile, computed exactly instead of by
// resampling: the k-th smallest of n values drawn with replacement from a sample is at most
// v exactly when at least k of the draws are, and the number of draws at most v is
// Binomial(n, F(v)), F the sample's share of values <= v. So
//   P(resampled percentile <= v) = P(Binomial(n, F(v)) >= k) = I_F(v)(k, n - k + 1)
// (the regularized incomplete beta). Two runs' resamples are independent, so the bootstrap
// distribution of the difference of their percentiles is the convolution of the two. No
// random draws: the same runs give the same interval, every time, on every machine.
import { nearestRank } from './nearest-rank.ts';
import { incompleteBeta } from './student-t.ts';

/** Probabilities below this are left out of a distribution (their sum stays below 1e-9). */
const NEGLIGIBLE = 1e-12;

export interface Atom {
  value: number;
  p: number;
}

/** P(Binomial(n, q) >= k). */
function binomialAtLeast(n: number, q: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  return incompleteBeta(q, k, n - k + 1);
}

/**
 * The 0-based ranks whose values can carry more than negligible mass as the resampled k-th
 * smallest of n: 8 standard deviations of the binomial count either side of k - 1, widened
 * until the mass left out on each side is negligible. Near the ends the count is not normal:
 * the resampled maximum is at most x_{n-1-m} with probability (1 - m/n)^n, about e^-m, so
 * the 10 ranks of the normal window left about 1.7e-5 out at P100 (and 5.6e-9 at a rank-1
 * percentile's top end).
 */
function rankWindow(n: number, k: number): [number, number] {
  const spread = Math.sqrt(n * (k / n) * (1 - k / n)) + 1;
  let below = Math.ceil(8 * spread) + 2;
  let lo = Math.max(0, k - 1 - below);
  // P(Q < x_lo) <= P(Binomial(n, lo / n) >= k).
  while (lo > 0 && binomialAtLeast(n, lo / n, k) > NEGLIGIBLE) {
    below *= 2;
    lo = Math.max(0, k - 1 - below);
  }
  let above = Math.ceil(8 * spread) + 2;
  let hi = Math.min(n - 1, k - 1 + above);
  // P(Q > x_hi) <= 1 - P(Binomial(n, (hi + 1) / n) >= k).
  while (hi < n - 1 && 1 - binomialAtLeast(n, (hi + 1) / n, k) > NEGLIGIBLE) {
    above *= 2;
    hi = Math.min(n - 1, k - 1 + above);
  }
  return [lo, hi];
}

/**
 * The exact bootstrap distribution of the nearest-rank `percentile` of `sorted` (ascending):
 * the values it can take and their probabilities, negligible ones left out.
 */
export function percentileBootstrap(sorted: ArrayLike<number>, percentile: number): Atom[] {
  const n = sorted.length;
  if (n === 0) return [];
  const k = nearestRank(percentile, n);
  // Ranks far from k carry no mass: start where P(Q <= x_j) is already above NEGLIGIBLE.
  let [j, last] = rankWindow(n, k);
  const out: Atom[] = [];
  let below = j === 0 ? 0 : binomialAtLeast(n, j / n, k);
  while (j <= last) {
    const value = sorted[j] as number;
    // Every copy of this value at once: F(value) counts them all.
    let end = j;
    while (end + 1 < n && (sorted[end + 1] as number) === value) end++;
    const upTo = end === n - 1 ? 1 : binomialAtLeast(n, (end + 1) / n, k);
    const p = upTo - below;
    if (p > NEGLIGIBLE) out.push({ value, p });
    below = upTo;
    j = end + 1;
  }
  return out;
}

/** The distribution of a - b for independent a and b, equal values merged. */
export function differenceOf(a: Atom[], b: Atom[]): Atom[] {
  const byValue = new Map<number, number>();
  for (const x of a) {
    for (const y of b) {
      const p = x.p * y.p;
      if (p <= NEGLIGIBLE * NEGLIGIBLE) continue;
      const d = x.value - y.value;
      byValue.set(d, (byValue.get(d) ?? 0) + p);
    }
  }
  return [...byValue].map(([value, p]) => ({ value, p })).sort((x, y) => x.value - y.value);
}

/** The smallest value whose cumulative probability reaches q (the distribution's q-quantile). */
export function quantileOf(dist: Atom[], q: number): number {
  const total = dist.reduce((s, x) => s + x.p, 0);
  let cum = 0;
  for (const x of dist) {
    cum += x.p / total;
    if (cum >= q - 1e-12) return x.value;
  }
  return (dist[dist.length - 1] as Atom).value;
}

/**
 * quantileOf(differenceOf(a, b), q) for each q without the convolution: both ascending, the
 * distribution function of a - b at d is sum_j P(b_j) P(a <= d + b_j), read by a binary
 * search of a's cumulative probabilities per b_j (with the same comparison a_i - b_j <= d
 * the convolution makes). The smallest atom a_i - b_j reaching q is found by bisection on
 * d, then by the nearest atom above the last d that fell short. O((|a| + |b|) log |a|) a
 * step instead of |a| |b| products, a Map of them and a sort: a compare of three runs of
 * 20,000 latencies took seconds of the event loop. Checked against the convolution
 * (quantile-bootstrap.test.ts).
 */
export function differenceQuantiles(a: Atom[], b: Atom[], qs: readonly number[]): number[] {
  const cumA: number[] = [];
  let s = 0;
  for (const x of a) {
    s += x.p;
    cumA.push(s);
  }
  const totalB = b.reduce((t, y) => t + y.p, 0);
  const total = s * totalB;
  /** P(a - b <= d) / total. */
  const cdf = (d: number): number => {
    let sum = 0;
    for (const y of b) {
      // The last i with a_i - y <= d.
      let lo = 0;
      let hi = a.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((a[mid] as Atom).value - y.value <= d) lo = mid + 1;
        else hi = mid;
      }
      if (lo > 0) sum += y.p * (cumA[lo - 1] as number);
    }
    return sum / total;
  };
  const first = (a[0] as Atom).value - (b[b.length - 1] as Atom).value;
  const last = (a[a.length - 1] as Atom).value - (b[0] as Atom).value;
  return qs.map((q) => {
    const target = q - 1e-12;
    if (cdf(first) >= target) return first;
    // cdf(lo) < target <= cdf(hi): the answer is an atom in (lo, hi].
    let lo = first;
    let hi = last;
    for (let i = 0; i < 200 && hi > lo; i++) {
      const mid = lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) break;
      if (cdf(mid) >= target) hi = mid;
      else lo = mid;
    }
    // The smallest atom above lo: each b_j's smallest a_i with a_i - b_j > lo.
    let best = Number.POSITIVE_INFINITY;
    for (const y of b) {
      let l = 0;
      let h = a.length;
      while (l < h) {
        const mid = (l + h) >> 1;
        if ((a[mid] as Atom).value - y.value <= lo) l = mid + 1;
        else h = mid;
      }
      if (l < a.length) best = Math.min(best, (a[l] as Atom).value - y.value);
    }
    return best;
  });
}

export interface PercentileDifference {
  /** current minus baseline, of the samples themselves. */
  delta: number;
  /** The central `level` interval of the bootstrap distribution of the difference. */
  low: number;
  high: number;
  level: number;
}

/**
 * The difference of two samples' nearest-rank percentile (current - baseline) and its
 * percentile-bootstrap interval at `level` (0.95: the 2.5 % and 97.5 % points).
 */
export function percentileDifference(
  current: ArrayLike<number>,
  baseline: ArrayLike<number>,
  percentile: number,
  level = 0.95,
): PercentileDifference | null {
  if (current.length === 0 || baseline.length === 0) return null;
  const rank = (n: number) => nearestRank(percentile, n) - 1;
  const delta =
    (current[rank(current.length)] as number) - (baseline[rank(baseline.length)] as number);
  const tail = (1 - level) / 2;
  const [low, high] = differenceQuantiles(
    percentileBootstrap(current, percentile),
    percentileBootstrap(baseline, percentile),
    [tail, 1 - tail],
  ) as [number, number];
  return { delta, low, high, level };
}

/**
 * A sample given as distinct values (ascending) and how often each occurs, as a histogram
 * holds it: each bucket's count at one value. Its exact bootstrap distribution is that of the
 * sample written out, computed from the cumulative counts, bucket by bucket: bounded by the
 * number of buckets whatever the count (10^9 requests cost as much as 10^3).
 */
export function countsBootstrap(
  values: ArrayLike<number>,
  counts: ArrayLike<number>,
  percentile: number,
): Atom[] {
  let n = 0;
  for (let i = 0; i < counts.length; i++) n += counts[i] as number;
  if (n === 0) return [];
  const k = nearestRank(percentile, n);
  // 0-based ranks that can carry mass.
  const [lo, hi] = rankWindow(n, k);
  const out: Atom[] = [];
  let below: number | null = null;
  let start = 0;
  for (let i = 0; i < counts.length && start <= hi; i++) {
    const c = counts[i] as number;
    if (c <= 0) continue;
    const end = start + c - 1;
    if (end >= lo) {
      below ??= start === 0 ? 0 : binomialAtLeast(n, start / n, k);
      const upTo = end === n - 1 ? 1 : binomialAtLeast(n, (end + 1) / n, k);
      const p = upTo - below;
      if (p > NEGLIGIBLE) out.push({ value: values[i] as number, p });
      below = upTo;
    }
    start = end + 1;
  }
  return out;
}

/** A histogram as values and counts: the value each bucket's observations are read as. */
export interface CountedSample {
  values: ArrayLike<number>;
  counts: ArrayLike<number>;
}

/** percentileDifference for two counted samples (histograms): nearest rank, exact bootstrap. */
export function countedPercentileDifference(
  current: CountedSample,
  baseline: CountedSample,
  percentile: number,
  level = 0.95,
): PercentileDifference | null {
  const at = (s: CountedSample) => {
    let n = 0;
    for (let i = 0; i < s.counts.length; i++) n += s.counts[i] as number;
    if (n === 0) return null;
    const k = nearestRank(percentile, n);
    let cum = 0;
    for (let i = 0; i < s.counts.length; i++) {
      cum += s.counts[i] as number;
      if (cum >= k) return s.values[i] as number;
    }
    return null;
  };
  const c = at(current);
  const b = at(baseline);
  if (c === null || b === null) return null;
  const dist = differenceOf(
    countsBootstrap(current.values, current.counts, percentile),
    countsBootstrap(baseline.values, baseline.counts, percentile),
  );
  const tail = (1 - level) / 2;
  // Rounded to 1e-9: bucket values in ms (8.127 - 7.887) differ by 0.24, not 0.2400000000000011.
  const r = (v: number) => Math.round(v * 1e9) / 1e9;
  return {
    delta: r(c - b),
    low: r(quantileOf(dist, tail)),
    high: r(quantileOf(dist, 1 - tail)),
    level,
  };
}
