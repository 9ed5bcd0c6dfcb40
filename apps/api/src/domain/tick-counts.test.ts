import { describe, expect, it } from 'vitest';
import { TickCounts } from './tick-counts.ts';

const counted = (ticks: number[], tickMs = 1, below = 0, above = 0) => {
  const c = new TickCounts(tickMs, { below, above });
  for (const t of ticks) c.add(t);
  return c;
};

describe('TickCounts', () => {
  it('gives the nearest rank: the least value with at least p % at or below it', () => {
    // 1..10 shuffled: P50 is the 5th value, P50.1 the 6th, P10 the 1st, P100 the 10th.
    const c = counted([7, 3, 10, 1, 5, 9, 2, 8, 4, 6]);
    expect(c.percentiles([10, 50, 50.1, 90, 90.1, 100]).map((q) => q.ms)).toEqual([
      1, 5, 6, 9, 10, 10,
    ]);
    expect(c.percentiles([1]).map((q) => q.ms)).toEqual([1]);
  });

  it('counts repeats: a value held by many ranks answers all of them', () => {
    const c = counted([2, 2, 2, 2, 9]);
    expect(c.percentiles([80, 80.01]).map((q) => q.ms)).toEqual([2, 9]);
    expect(c.count).toBe(5);
    expect(c.moments()).toEqual({ meanMs: 3.4, stdDevMs: Math.sqrt(7.84) });
  });

  it('marks values exact only when the tool did not round, and bounds them by its rounding', () => {
    expect(counted([3]).percentiles([50])).toEqual([{ p: 50, ms: 3, exact: true, method: 'raw' }]);
    // 0.1 ms ticks rounded to the nearest: 12.3 ms is 12.25 .. 12.35.
    expect(counted([123], 0.1, 0.5, 0.5).percentiles([50])).toEqual([
      { p: 50, ms: 12.3, exact: false, method: 'raw', lower: 12.25, upper: 12.35 },
    ]);
    // Never below zero.
    expect(counted([0], 1, 1, 1).percentiles([50])[0]).toMatchObject({ lower: 0, upper: 1 });
  });

  it('keeps values past the dense range, in order with the rest', () => {
    const big = 5_000_000;
    const c = counted([big + 7, 1, big, 2]);
    expect(c.percentiles([25, 50, 75, 100]).map((q) => q.ms)).toEqual([1, 2, big, big + 7]);
    expect([c.min, c.max]).toEqual([1, big + 7]);
  });

  it('counts a tick at each edge of the arrays: their sizes, and the dense range', () => {
    // The dense array starts at 1,024 ticks and doubles; ticks from 2^22 are kept apart.
    const edges = [1023, 1024, 2047, 2048, 4096, 2 ** 22 - 1, 2 ** 22, 2 ** 22 + 1];
    for (const t of edges) {
      const one = counted([t]);
      expect([...one.entries()]).toEqual([[t, 1]]);
      expect(one.percentiles([100]).map((q) => q.ms)).toEqual([t]);
    }
    const all = counted([...edges].reverse());
    expect([...all.entries()]).toEqual(edges.map((t) => [t, 1]));
    // 8 values: P50 is the 4th (2048), P62.5 the 5th (4096).
    expect(all.percentiles([50, 62.5]).map((q) => q.ms)).toEqual([2048, 4096]);
  });

  it('reads ranks past the first value when several percentiles are asked', () => {
    const c = counted([5, 1, 1, 3]);
    // 4 values 1, 1, 3, 5: P50 is the 2nd (1), P75 the 3rd (3), P100 the 4th (5).
    expect(c.percentiles([100, 50, 75]).map((q) => [q.p, q.ms])).toEqual([
      [50, 1],
      [75, 3],
      [100, 5],
    ]);
  });

  it('has a deviation of 0 for equal values and the population one otherwise', () => {
    expect(counted([7, 7, 7]).moments()).toEqual({ meanMs: 7, stdDevMs: 0 });
    // 0.1 ms ticks 10 and 30: mean 2 ms, deviation 1 ms.
    const m = counted([10, 30], 0.1).moments();
    expect(m?.meanMs).toBe(2);
    expect(m?.stdDevMs).toBeCloseTo(1, 12);
  });

  it('has no percentiles of nothing', () => {
    expect(counted([]).percentiles([50])).toEqual([]);
    expect(counted([]).moments()).toBeNull();
  });
});
