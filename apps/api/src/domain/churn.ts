// The maths of a run with many changes (a churn test), over each change's sorted first
// applications (microseconds since its change): per-change statistics, the pooled
// distribution of all of them together (read across the sorted lists, never merged), the
// distribution of one per-change percentile over the changes, and the (change x time since
// change) heatmap. Every percentile is nearest rank.
import type { HistogramScale } from '@meshbench/schema';
import { nearestRank } from './nearest-rank.ts';
import { histogramEdges } from './propagation-stats.ts';
import { SortedLatencies } from './sorted-latencies.ts';

/** Nearest rank p over a sorted list; null when it is empty. */
export function nearestRankOf(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[nearestRank(p, sorted.length) - 1] as number;
}

/** How many values of a sorted list are <= x. */
export function countAtOrBelow(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Several sorted lists read as the one sorted list they would merge into, without merging:
 * a count is the sum of each list's count, and the value at a rank is found by a binary
 * search in each list (k lists of n: O(k^2 log^2 n) per rank, no copy of the k n values).
 */
export class PooledSorted {
  readonly parts: readonly Float64Array[];
  readonly length: number;

  constructor(parts: readonly Float64Array[]) {
    this.parts = parts.filter((p) => p.length > 0);
    this.length = this.parts.reduce((n, p) => n + p.length, 0);
  }

  countAtOrBelow(x: number): number {
    let n = 0;
    for (const p of this.parts) n += countAtOrBelow(p, x);
    return n;
  }

  /**
   * The value at 1-based rank r: the smallest value v with at least r values <= v. In the
   * list that holds it, it is the first value reaching r; in any other list the first value
   * reaching r is no smaller. So it is the least of those firsts.
   */
  at(rank: number): number {
    let best = Number.POSITIVE_INFINITY;
    for (const p of this.parts) {
      let lo = 0;
      let hi = p.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.countAtOrBelow(p[mid] as number) >= rank) hi = mid;
        else lo = mid + 1;
      }
      if (lo < p.length && (p[lo] as number) < best) best = p[lo] as number;
    }
    return best;
  }

  get min(): number | null {
    return this.length > 0 ? Math.min(...this.parts.map((p) => p[0] as number)) : null;
  }

  get max(): number | null {
    return this.length > 0 ? Math.max(...this.parts.map((p) => p[p.length - 1] as number)) : null;
  }

  /** The smallest value above 0 (where log bins start), or undefined when none is. */
  get smallestPositive(): number | undefined {
    let best: number | undefined;
    for (const p of this.parts) {
      const i = countAtOrBelow(p, 0);
      if (i < p.length && (best === undefined || (p[i] as number) < best)) best = p[i] as number;
    }
    return best;
  }
}

/** Read access to one sorted list or to several pooled. */
type Sorted = Float64Array | PooledSorted;
const countOf = (s: Sorted, x: number) =>
  s instanceof PooledSorted ? s.countAtOrBelow(x) : countAtOrBelow(s, x);
const atRank = (s: Sorted, rank: number) =>
  s instanceof PooledSorted ? s.at(rank) : (s[rank - 1] as number);

/** Statistics of one sorted list of latencies (us); fractions over `denominator`. */
export interface LatencyStats {
  count: number;
  minUs: number | null;
  maxUs: number | null;
  percentiles: { p: number; us: number }[];
  withinCount: number;
  withinFraction: number | null;
}

export function latencyStats(
  sorted: Sorted,
  percentiles: readonly number[],
  withinUs: number,
  denominator: number,
): LatencyStats {
  const n = sorted.length;
  const withinCount = countOf(sorted, withinUs);
  const pooled = sorted instanceof PooledSorted;
  return {
    count: n,
    minUs: n === 0 ? null : pooled ? sorted.min : (sorted[0] as number),
    maxUs: n === 0 ? null : pooled ? sorted.max : (sorted[n - 1] as number),
    percentiles:
      n > 0 ? percentiles.map((p) => ({ p, us: atRank(sorted, nearestRank(p, n)) })) : [],
    withinCount,
    withinFraction: denominator > 0 ? withinCount / denominator : null,
  };
}

/** Min, median, P90 and max (nearest rank) of a list of numbers, such as per-change P99s. */
export interface ValuesSummary {
  count: number;
  min: number | null;
  median: number | null;
  p90: number | null;
  max: number | null;
}

export function summarizeValues(values: readonly number[]): ValuesSummary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  return {
    count: n,
    min: n > 0 ? (sorted[0] as number) : null,
    median: nearestRankOf(sorted, 50),
    p90: nearestRankOf(sorted, 90),
    max: n > 0 ? (sorted[n - 1] as number) : null,
  };
}

export interface Heatmap {
  /** Bin edges (us); bins are [edge_i, edge_i+1), the last one closed. */
  edgesUs: number[];
  /** Per change (in the order given), first applications per bin. */
  counts: number[][];
  maxCount: number;
}

/**
 * Shared bins over the pooled range (min to max of every change's latencies), so a column
 * means the same time since change in every row. Log bins over skewed (<= 0) latencies start
 * at the smallest positive one, with the skewed ones in a bin of their own in front.
 */
export function churnHeatmap(
  perChange: readonly Float64Array[],
  bins: number,
  scale: HistogramScale,
): Heatmap {
  const pooled = new PooledSorted(perChange);
  const { min, max } = pooled;
  if (min === null || max === null)
    return { edgesUs: [], counts: perChange.map(() => []), maxCount: 0 };
  const edgesUs = histogramEdges(min, max, bins, scale, pooled.smallestPositive);
  let maxCount = 0;
  const counts = perChange.map((sorted) => {
    const sample = SortedLatencies.fromSorted(sorted);
    if (sorted.length === 0) return edgesUs.slice(1).map(() => 0);
    const below = edgesUs.map((x) => sample.countBelow(x, true));
    const row: number[] = [];
    for (let i = 0; i + 1 < edgesUs.length; i++) {
      const upper =
        i + 2 === edgesUs.length
          ? sample.countBelow(edgesUs[i + 1] as number, false)
          : (below[i + 1] as number);
      const count = upper - (below[i] as number);
      if (count > maxCount) maxCount = count;
      row.push(count);
    }
    return row;
  });
  return { edgesUs, counts, maxCount };
}
