// The maths of a run with many changes (a churn test), over each change's sorted first
// applications (microseconds since its change): per-change statistics, the pooled
// distribution of all of them together, the distribution of one per-change percentile over
// the changes, and the (change x time since change) heatmap. Every percentile is nearest rank.
import type { HistogramScale } from '@meshbench/schema';
import { histogramEdges, nearestRank } from './propagation-stats.ts';
import { SortedLatencies } from './sorted-latencies.ts';

/** One list merged from sorted lists, sorted: pairwise merges, O(n log k). */
export function mergeSorted(parts: readonly Float64Array[]): Float64Array {
  let level = parts.filter((p) => p.length > 0);
  if (level.length === 0) return new Float64Array(0);
  while (level.length > 1) {
    const next: Float64Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i] as Float64Array;
      const b = level[i + 1];
      next.push(b ? mergeTwo(a, b) : a);
    }
    level = next;
  }
  return level[0] as Float64Array;
}

function mergeTwo(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x <= y) {
      out[k++] = x;
      i++;
    } else {
      out[k++] = y;
      j++;
    }
  }
  while (i < a.length) out[k++] = a[i++] as number;
  while (j < b.length) out[k++] = b[j++] as number;
  return out;
}

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
  sorted: Float64Array,
  percentiles: readonly number[],
  withinUs: number,
  denominator: number,
): LatencyStats {
  const n = sorted.length;
  const withinCount = countAtOrBelow(sorted, withinUs);
  return {
    count: n,
    minUs: n > 0 ? (sorted[0] as number) : null,
    maxUs: n > 0 ? (sorted[n - 1] as number) : null,
    percentiles:
      n > 0 ? percentiles.map((p) => ({ p, us: nearestRankOf(sorted, p) as number })) : [],
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
  pooled: Float64Array,
  bins: number,
  scale: HistogramScale,
): Heatmap {
  if (pooled.length === 0) return { edgesUs: [], counts: perChange.map(() => []), maxCount: 0 };
  const min = pooled[0] as number;
  const max = pooled[pooled.length - 1] as number;
  const firstPositive = countAtOrBelow(pooled, 0);
  const positiveMin = firstPositive < pooled.length ? pooled[firstPositive] : undefined;
  const edgesUs = histogramEdges(min, max, bins, scale, positiveMin);
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
