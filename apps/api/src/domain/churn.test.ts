import { describe, expect, it } from 'vitest';
import { prng } from '../demo/prng.ts';
import {
  churnHeatmap,
  countAtOrBelow,
  latencyStats,
  nearestRankOf,
  PooledSorted,
  summarizeValues,
} from './churn.ts';

const f = (...xs: number[]) => Float64Array.from(xs);
/** The obviously right pooled list: every value in one array, sorted. */
const concatSorted = (lists: readonly Float64Array[]) =>
  Float64Array.from(lists.flatMap((l) => [...l])).sort();

describe('PooledSorted', () => {
  it('reads sorted lists as one, empty ones included, duplicates kept', () => {
    // As one list: 0 1 2 3 4 4 9 10.
    const pooled = new PooledSorted([f(1, 4, 9), f(2, 3), f(), f(0, 4, 10)]);
    expect(pooled.length).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((r) => pooled.at(r))).toEqual([0, 1, 2, 3, 4, 4, 9, 10]);
    expect(pooled.countAtOrBelow(4)).toBe(6);
    expect(pooled.countAtOrBelow(3.5)).toBe(4);
    expect([pooled.min, pooled.max, pooled.smallestPositive]).toEqual([0, 10, 1]);
    const empty = new PooledSorted([f(), f()]);
    expect([empty.length, empty.min, empty.max, empty.smallestPositive]).toEqual([
      0,
      null,
      null,
      undefined,
    ]);
  });

  it('equals concatenating and sorting at every rank, for 300 seeded random sets of lists', () => {
    const r = prng(15);
    for (let t = 0; t < 300; t++) {
      const lists = Array.from({ length: r.int(0, 9) }, () =>
        Float64Array.from(
          { length: r.int(0, 40) },
          // `|| 0`: no -0, which toEqual tells apart from 0.
          () => Math.round(r.uniform(-50, 500)) || 0,
        ).sort(),
      );
      const obvious = concatSorted(lists);
      const pooled = new PooledSorted(lists);
      expect(pooled.length).toBe(obvious.length);
      const ranks = Array.from({ length: obvious.length }, (_, i) => i + 1);
      expect(ranks.map((rank) => pooled.at(rank))).toEqual([...obvious]);
      const x = Math.round(r.uniform(-60, 510));
      expect(pooled.countAtOrBelow(x)).toBe(obvious.filter((v) => v <= x).length);
      expect(pooled.smallestPositive).toBe(obvious.find((v) => v > 0));
    }
  });
});

describe('nearest rank over a sorted list', () => {
  // 10 values: rank ceil(p/100 * 10).
  const ten = f(10, 20, 30, 40, 50, 60, 70, 80, 90, 100);
  it('takes the value at rank ceil(p n / 100)', () => {
    expect(nearestRankOf(ten, 50)).toBe(50); // rank 5
    expect(nearestRankOf(ten, 90)).toBe(90); // rank 9
    expect(nearestRankOf(ten, 91)).toBe(100); // rank ceil(9.1) = 10
    expect(nearestRankOf(ten, 99)).toBe(100); // rank ceil(9.9) = 10
    expect(nearestRankOf(ten, 1)).toBe(10); // rank ceil(0.1) = 1
    expect(nearestRankOf(f(), 50)).toBeNull();
  });

  it('counts values at or below a bound', () => {
    expect(countAtOrBelow(ten, 30)).toBe(3);
    expect(countAtOrBelow(ten, 29.9)).toBe(2);
    expect(countAtOrBelow(ten, 5)).toBe(0);
    expect(countAtOrBelow(ten, 1000)).toBe(10);
  });
});

describe('latencyStats', () => {
  it('gives count, min, max, percentiles and the share within a bound over a denominator', () => {
    const s = latencyStats(f(1000, 2000, 3000, 4000), [50, 99], 2000, 8);
    expect(s).toEqual({
      count: 4,
      minUs: 1000,
      maxUs: 4000,
      percentiles: [
        { p: 50, us: 2000 }, // rank 2
        { p: 99, us: 4000 }, // rank ceil(3.96) = 4
      ],
      withinCount: 2, // 1000 and 2000 (<= 2000)
      withinFraction: 2 / 8,
    });
  });

  it('has no percentiles and a zero or null share when nothing arrived', () => {
    expect(latencyStats(f(), [50], 1000, 5)).toMatchObject({
      count: 0,
      minUs: null,
      percentiles: [],
      withinFraction: 0,
    });
    expect(latencyStats(f(), [50], 1000, 0).withinFraction).toBeNull();
  });
});

describe('pooled percentiles are not percentiles of per-change percentiles', () => {
  it('a slow change weighs by its applications when pooled, by one vote in the P99s', () => {
    // 4 changes of 100 proxies. Changes a, b, c: 1..100 ms. Change d: 100 ms x 100.
    const ramp = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    const flat = new Float64Array(100).fill(100);
    const changes = [ramp, ramp, ramp, flat];
    // Per-change P99 (rank 99): 99, 99, 99, 100.
    const p99s = changes.map((c) => nearestRankOf(c, 99) as number);
    expect(p99s).toEqual([99, 99, 99, 100]);
    // Their distribution: sorted 99, 99, 99, 100; median rank 2 = 99; P90 rank ceil(3.6) = 4.
    expect(summarizeValues(p99s)).toEqual({ count: 4, min: 99, median: 99, p90: 100, max: 100 });
    // Pooled: 400 values; the three ramps give each value 1..99 three times (297 values
    // below 100), then 100 x 103. P50 = rank 200: the ramps' values in order, 3 per ms,
    // rank 200 is ms ceil(200 / 3) = 67. P25 = rank 100: ms ceil(100/3) = 34.
    const stats = latencyStats(new PooledSorted(changes), [25, 50, 99], 99, 400);
    expect(stats.percentiles).toEqual([
      { p: 25, us: 34 },
      { p: 50, us: 67 },
      { p: 99, us: 100 }, // rank 396: among the 103 hundreds
    ]);
    expect(stats.withinCount).toBe(297);
    // A median of per-change medians would say 50 (ranks 50, 50, 50, 100 -> 50): not 67.
    expect(summarizeValues(changes.map((c) => nearestRankOf(c, 50) as number)).median).toBe(50);
  });
});

describe('summarizeValues', () => {
  it('orders the values first and takes nearest ranks', () => {
    // sorted 1..5: median rank ceil(2.5) = 3, P90 rank ceil(4.5) = 5.
    expect(summarizeValues([5, 1, 3, 2, 4])).toEqual({
      count: 5,
      min: 1,
      median: 3,
      p90: 5,
      max: 5,
    });
    expect(summarizeValues([])).toEqual({
      count: 0,
      min: null,
      median: null,
      p90: null,
      max: null,
    });
  });
});

describe('churnHeatmap', () => {
  it('counts each change in bins shared over the pooled range (linear)', () => {
    const a = f(0, 1, 2, 3);
    const b = f(3, 3);
    const empty = f();
    const h = churnHeatmap([a, b, empty], 3, 'linear');
    // Pooled 0..3 in 3 bins: [0,1) [1,2) [2,3], the last closed.
    expect(h.edgesUs).toEqual([0, 1, 2, 3]);
    expect(h.counts).toEqual([
      [1, 1, 2],
      [0, 0, 2],
      [0, 0, 0],
    ]);
    expect(h.maxCount).toBe(2);
  });

  it('puts skewed (<= 0) latencies in a bin of their own in front of log bins', () => {
    const a = f(-5, 1, 10, 100);
    const h = churnHeatmap([a], 3, 'log');
    // Log bins from the smallest positive (1) to 100 in 3 - 1 = 2 bins: ratio 10.
    expect(h.edgesUs.map((e) => Math.round(e * 1e6) / 1e6)).toEqual([-5, 1, 10, 100]);
    expect(h.counts).toEqual([[1, 1, 2]]);
  });

  it('rows sum to the count of each change for random changes', () => {
    const r = prng(7);
    const changes = Array.from({ length: 6 }, () =>
      Float64Array.from({ length: r.int(0, 300) }, () => r.logNormal(200_000, 1)).sort(),
    );
    for (const scale of ['linear', 'log'] as const) {
      const h = churnHeatmap(changes, 17, scale);
      expect(h.counts.map((row) => row.reduce((s, c) => s + c, 0))).toEqual(
        changes.map((c) => c.length),
      );
    }
  });

  it('is empty without latencies', () => {
    expect(churnHeatmap([f(), f()], 10, 'linear')).toEqual({
      edgesUs: [],
      counts: [[], []],
      maxCount: 0,
    });
  });
});
