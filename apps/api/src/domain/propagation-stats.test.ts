import { describe, expect, it } from 'vitest';
import { nearestRank } from './nearest-rank.ts';
import { computeSummary, histogramEdges, type SummaryRequest } from './propagation-stats.ts';
import { SortedLatencies } from './sorted-latencies.ts';

const ms = (values: number[]) =>
  new Float64Array(values.map((v) => v * 1000).sort((a, b) => a - b));
const req = (over: Partial<SummaryRequest> = {}): SummaryRequest => ({
  percentiles: [50, 90, 96, 99],
  withinMs: 1000,
  bins: 4,
  scale: 'linear',
  ...over,
});
const summarize = (
  values: number[],
  over: Partial<SummaryRequest> = {},
  expected?: number,
  blockSize?: number,
) => {
  const sorted = ms(values);
  return computeSummary(
    req(over),
    {
      n: sorted.length,
      minUs: sorted[0] ?? null,
      maxUs: sorted[sorted.length - 1] ?? null,
      denominator: expected ?? sorted.length,
    },
    SortedLatencies.fromSorted(sorted, blockSize),
  );
};

describe('nearestRank', () => {
  it('is ceil(p/100 * n), clamped to [1, n]', () => {
    expect(nearestRank(50, 10)).toBe(5);
    expect(nearestRank(90, 10)).toBe(9);
    expect(nearestRank(99, 10)).toBe(10);
    expect(nearestRank(0.1, 10)).toBe(1);
    expect(nearestRank(100, 10)).toBe(10);
  });
  it('does not overshoot on floating-point products (96 % of 1000 is rank 960)', () => {
    expect(nearestRank(96, 1000)).toBe(960);
    expect(nearestRank(99.9, 1000)).toBe(999);
    expect(nearestRank(57, 100)).toBe(57); // 0.57 * 100 = 56.99999999999999
  });
});

describe('percentiles', () => {
  it('a single observation is every percentile', () => {
    const s = summarize([42]);
    expect(s.percentiles.map((p) => p.ms)).toEqual([42, 42, 42, 42]);
  });

  it('ties: the smallest value with at least p % at or below it', () => {
    // 1,2,2,2,2,2,2,2,2,10: P50 -> rank 5 -> 2; P90 -> rank 9 -> 2; P96 -> rank 10 -> 10.
    const s = summarize([1, 2, 2, 2, 2, 2, 2, 2, 2, 10]);
    expect(s.percentiles).toEqual([
      { p: 50, ms: 2, exact: true, method: 'raw' },
      { p: 90, ms: 2, exact: true, method: 'raw' },
      { p: 96, ms: 10, exact: true, method: 'raw' },
      { p: 99, ms: 10, exact: true, method: 'raw' },
    ]);
  });

  it('P96 of 1..25 is 24 by nearest rank, where interpolation would give 24.04', () => {
    // rank = ceil(0.96 * 25) = 24; linear interpolation gives 1 + 0.96 * 24 = 24.04.
    const values = Array.from({ length: 25 }, (_, i) => i + 1);
    const s = summarize(values, { percentiles: [96] });
    expect(s.percentiles).toEqual([{ p: 96, ms: 24, exact: true, method: 'raw' }]);
  });

  it('gives the same answers whatever the block size', () => {
    const values = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1000) + 0.5);
    const whole = summarize(values, { percentiles: [50, 90, 95, 96, 99, 99.9] });
    for (const blockSize of [1, 7, 64, 999]) {
      const blocked = summarize(
        values,
        { percentiles: [50, 90, 95, 96, 99, 99.9] },
        undefined,
        blockSize,
      );
      // The CDF's sample points may differ (block starts); every exact figure may not.
      expect({ ...blocked, cdf: [] }).toEqual({ ...whole, cdf: [] });
    }
    // values are 0.5 .. 999.5: rank 960 is 959.5.
    expect(whole.percentiles.find((p) => p.p === 96)?.ms).toBe(959.5);
  });

  it('keeps negative latencies (clock skew) in the order', () => {
    const s = summarize([-5, 10, 20, 30], { percentiles: [25, 50] });
    expect(s.percentiles).toEqual([
      { p: 25, ms: -5, exact: true, method: 'raw' },
      { p: 50, ms: 10, exact: true, method: 'raw' },
    ]);
  });
});

describe('within', () => {
  it('counts latencies <= the bound, over expected proxies when declared', () => {
    const s = summarize([100, 500, 1000, 1000.001, 5000], {}, 10);
    expect(s.withinCount).toBe(3);
    expect(s.withinFraction).toBe(0.3);
  });
  it('uses the observation count without expected', () => {
    const s = summarize([100, 500, 1000, 1000.001, 5000]);
    expect(s.withinFraction).toBe(0.6);
  });
});

describe('histogram', () => {
  it('linear bins are half-open with the last one closed', () => {
    // range 0..8 in 4 bins: [0,2) [2,4) [4,6) [6,8]
    const s = summarize([0, 1, 2, 2, 3.999, 4, 7.5, 8]);
    expect(s.histogram).toEqual([
      { fromMs: 0, toMs: 2, count: 2 },
      { fromMs: 2, toMs: 4, count: 3 },
      { fromMs: 4, toMs: 6, count: 1 },
      { fromMs: 6, toMs: 8, count: 2 },
    ]);
  });

  it('counts what falls outside a requested range as under/overflow', () => {
    const s = summarize([1, 2, 3, 50, 60], { fromMs: 2, toMs: 10, bins: 2 });
    expect(s.histogram).toEqual([
      { fromMs: 2, toMs: 6, count: 2 },
      { fromMs: 6, toMs: 10, count: 0 },
    ]);
    expect(s.underflow).toBe(1);
    expect(s.overflow).toBe(2);
  });

  it('log bins grow by a constant ratio', () => {
    const edges = histogramEdges(1, 1000, 3, 'log');
    expect(edges.map((e) => Math.round(e * 1e6) / 1e6)).toEqual([1, 10, 100, 1000]);
  });

  it('log bins keep skewed latencies in a bin of their own', () => {
    const s = summarize([-2, 0.01, 0.1, 1, 10], { scale: 'log', bins: 4 });
    const total = s.histogram.reduce((a, b) => a + b.count, 0);
    expect(total).toBe(5);
    expect(s.histogram[0]).toMatchObject({ fromMs: -2, count: 1 });
  });

  it('log bins over skewed latencies start at the smallest positive one when it is known', () => {
    // -2 ms stands alone in the first bin; the 3 log bins cover 0.1 .. 100 ms by decades.
    const edges = histogramEdges(-2000, 100_000, 4, 'log', 100);
    expect(edges.map((e) => Math.round(e))).toEqual([-2000, 100, 1000, 10_000, 100_000]);
  });

  it('a single value is one bin', () => {
    const s = summarize([7]);
    expect(s.histogram).toEqual([{ fromMs: 7, toMs: 7, count: 1 }]);
  });
});

describe('cdf', () => {
  it('ends at count / expected, below 1 when proxies never applied the change', () => {
    const s = summarize([1, 2, 3, 4], { cdfPoints: 4 }, 8);
    expect(s.cdf.at(-1)).toEqual({ ms: 4, fraction: 0.5 });
    expect(s.cdf[0]).toEqual({ ms: 1, fraction: 0.125 });
  });
  it('is non-decreasing in both axes', () => {
    const values = Array.from({ length: 5000 }, (_, i) => Math.sqrt(i));
    const s = summarize(values, {}, undefined, 16);
    for (let i = 1; i < s.cdf.length; i++) {
      expect(s.cdf[i]!.ms).toBeGreaterThanOrEqual(s.cdf[i - 1]!.ms);
      expect(s.cdf[i]!.fraction).toBeGreaterThan(s.cdf[i - 1]!.fraction);
    }
    expect(s.cdf.at(-1)?.fraction).toBe(1);
  });
});
