import { describe, expect, it } from 'vitest';
import {
  bucketBins,
  bucketRange,
  percentilesFromBins,
  reportedMedian,
  reportedPercentile,
} from './locust-buckets.ts';

// Expected values are worked by hand from locust/stats.py at 407343d0 (bucket_response_time,
// calculate_response_time_percentile, median_from_dict, StatsEntry.median_response_time).

describe('Locust bucket ranges (stats.py bucket_response_time)', () => {
  it.each([
    // key, lower, upper: round() under 100 ms, round(t, -1) under 1 s, -2 under 10 s, else -3;
    // a decade's first key also takes the values just under it rounded up by the finer rule.
    [0, 0, 0.5],
    [1, 0.5, 1.5],
    [99, 98.5, 99.5],
    [100, 99.5, 105],
    [110, 105, 115],
    [990, 985, 995],
    [1000, 995, 1050],
    [1100, 1050, 1150],
    [9900, 9850, 9950],
    [10000, 9950, 10500],
    [59000, 58500, 59500],
  ])('key %d holds [%d, %d]', (k, lower, upper) => {
    expect(bucketRange(k, 'round')).toEqual({ lower, upper });
  });

  it('Locust <= 0.13 kept times under 100 ms unrounded and printed them truncated ("%i")', () => {
    expect(bucketRange(42, 'legacy')).toEqual({ lower: 42, upper: 43 });
    expect(bucketRange(99, 'legacy')).toEqual({ lower: 99, upper: 100 });
    expect(bucketRange(100, 'legacy')).toEqual({ lower: 100, upper: 105 });
    expect(bucketRange(150, 'legacy')).toEqual({ lower: 145, upper: 155 });
  });
});

describe("a percentile Locust printed (calculate_response_time_percentile's rank)", () => {
  it('is bounded by its bucket when Locust took the nearest rank (N p not whole)', () => {
    // 11 requests, p50: Locust's rank int(5.5) + 1 = 6 = ceil(5.5), the nearest rank.
    expect(reportedPercentile('50', 120, 11, 'round', 1, 300)).toMatchObject({
      p: 50,
      ms: 120,
      exact: false,
      lower: 115,
      upper: 125,
    });
  });

  it('is bounded below only by the minimum when N p is whole (Locust took rank N p + 1)', () => {
    // 10 requests, p50: Locust's rank 6, the nearest rank 5: the 5th value may be far lower.
    expect(reportedPercentile('50', 120, 10, 'round', 1, 300)).toMatchObject({
      lower: 1,
      upper: 125,
    });
    // p99.9 of 1000 requests: 999 is whole too (the decimal is read exactly, not as 0.999 * 1000).
    expect(reportedPercentile('99.9', 120, 1000, 'round', 1, 300)?.lower).toBe(1);
    expect(reportedPercentile('99.9', 120, 1001, 'round', 1, 300)?.lower).toBe(115);
  });

  it('p100 is the maximum rank either way', () => {
    expect(reportedPercentile('100', 300, 10, 'round', 1, 302.5)).toMatchObject({
      lower: 295,
      upper: 302.5,
    });
  });

  it('cuts the bound to the run extremes and keeps the value inside it', () => {
    // /fail in the real run: key 140 for p100 with a 139.67 ms max.
    expect(reportedPercentile('100', 140, 94, 'round', 0.78, 139.66944900016642)).toMatchObject({
      ms: 139.66944900016642,
      lower: 135,
      upper: 139.66944900016642,
    });
  });
});

describe('a percentile Locust printed: what it is not', () => {
  it.each([
    ['abc'],
    ['99.'], // Number() reads it, decimalOf must not
    [' 50'],
    ['50 '],
    ['1e2'],
    ['0'],
    ['100.5'],
  ])('p %j is no percentile', (p) => {
    expect(reportedPercentile(p, 120, 10, 'round', 1, 300)).toBeNull();
  });

  it('an entry with no timed request has no percentile', () => {
    expect(reportedPercentile('50', 120, 0, 'round', 1, 300)).toBeNull();
  });
});

describe('a percentile Locust printed: its rank and bound, worked by hand', () => {
  it('reads two decimals exactly: 10000 x 99.99 % is whole, 10001 x 99.99 % is not', () => {
    // 10000 x 0.9999 = 9999: Locust's rank int(9999) + 1 = 10000, one above the nearest.
    expect(reportedPercentile('99.99', 120, 10000, 'round', 1, 300)?.lower).toBe(1);
    // 10001 x 0.9999 = 9999.9999: rank 10000 both ways, so the bucket [115, 125] holds it.
    expect(reportedPercentile('99.99', 120, 10001, 'round', 1, 300)).toMatchObject({
      p: 99.99,
      lower: 115,
      upper: 125,
    });
  });

  it('with no extremes known the bound is the bucket, or [0, bucket top] when N p is whole', () => {
    expect(reportedPercentile('50', 120, 11, 'round', null, null)).toEqual({
      p: 50,
      ms: 120,
      exact: false,
      method: 'tool-histogram',
      lower: 115,
      upper: 125,
    });
    expect(reportedPercentile('50', 120, 10, 'round', null, null)).toMatchObject({
      lower: 0,
      upper: 125,
    });
  });

  it('a printed key under the minimum moves up to it, and the bound never inverts', () => {
    // Key 120 holds [115, 125]; a minimum of 122 cuts it to [122, 125].
    expect(reportedPercentile('50', 120, 11, 'round', 122, 300)).toMatchObject({
      ms: 122,
      lower: 122,
      upper: 125,
    });
    // A minimum past the bucket top leaves the one point [126, 126].
    expect(reportedPercentile('50', 120, 11, 'round', 126, 300)).toMatchObject({
      ms: 126,
      lower: 126,
      upper: 126,
    });
  });
});

describe('the median Locust printed (median_from_dict, clamped into [min, max])', () => {
  it('is bounded by its bucket cut to the extremes', () => {
    expect(reportedMedian(95, 'round', 1.1, 362.7)).toEqual({
      p: 50,
      ms: 95,
      exact: false,
      method: 'tool-histogram',
      lower: 94.5,
      upper: 95.5,
    });
    // Key 95 holds [94.5, 95.5]; a minimum of 94.8 or a maximum of 95.2 cuts it.
    expect(reportedMedian(95, 'round', 94.8, null)).toMatchObject({ lower: 94.8, upper: 95.5 });
    expect(reportedMedian(95, 'round', null, 95.2)).toMatchObject({ lower: 94.5, upper: 95.2 });
    // Legacy: 42 printed with "%i" stands for [42, 43).
    expect(reportedMedian(42, 'legacy', null, null)).toMatchObject({ lower: 42, upper: 43 });
  });

  it('a median Locust clamped to the only request (3.4 ms, key 3) is that request', () => {
    expect(reportedMedian(3.4, 'round', 3.4, 3.4)).toMatchObject({
      ms: 3.4,
      lower: 3.4,
      upper: 3.4,
    });
  });

  it('keeps the printed value inside its bound when the extremes disagree with it', () => {
    // 5 below a minimum of 7: bucket [4.5, 5.5], cut by the minimum past 5: [5, 5.5].
    expect(reportedMedian(5, 'round', 7, 9)).toMatchObject({ ms: 5, lower: 5, upper: 5.5 });
    // 12 above a maximum of 10: bucket [11.5, 12.5], cut by the maximum below 12: [11.5, 12].
    expect(reportedMedian(12, 'round', 1, 10)).toMatchObject({ ms: 12, lower: 11.5, upper: 12 });
  });
});

describe('bucket counts as histogram bins', () => {
  const counts = new Map([
    [110, 2],
    [0, 0],
    [95, 3],
    [1000, 1],
  ]);

  it('sorts the keys, drops empty ones and gives each its raw range', () => {
    expect(bucketBins(counts, 'round', null, null)).toEqual([
      { fromMs: 94.5, toMs: 95.5, count: 3 },
      { fromMs: 105, toMs: 115, count: 2 },
      { fromMs: 995, toMs: 1050, count: 1 },
    ]);
    expect(bucketBins(new Map([[42, 1]]), 'legacy', null, null)).toEqual([
      { fromMs: 42, toMs: 43, count: 1 },
    ]);
  });

  it('cuts the first and last bins to the exact extremes', () => {
    expect(bucketBins(counts, 'round', 94.8, 1020)).toEqual([
      { fromMs: 94.8, toMs: 95.5, count: 3 },
      { fromMs: 105, toMs: 115, count: 2 },
      { fromMs: 995, toMs: 1020, count: 1 },
    ]);
  });

  it('never inverts a bin when the extremes lie outside it', () => {
    const one = new Map([[95, 1]]);
    // A minimum past the bin: it shrinks to its top.
    expect(bucketBins(one, 'round', 96, null)).toEqual([{ fromMs: 95.5, toMs: 95.5, count: 1 }]);
    // A maximum under the bin: it shrinks to its bottom.
    expect(bucketBins(one, 'round', null, 94)).toEqual([{ fromMs: 94.5, toMs: 94.5, count: 1 }]);
  });
});

describe('percentiles from the bins (nearest rank, linear inside the bin)', () => {
  it('finds the rank and spreads it over its bin', () => {
    // Keys 1 (1 request) and 2 (3 requests): 4 requests. p50: rank ceil(2) = 2, the first of
    // the 3 in [1.5, 2.5]: 1.5 + 1/3. p100: rank 4, the bin top.
    const bins = [
      { fromMs: 0.5, toMs: 1.5, count: 1 },
      { fromMs: 1.5, toMs: 2.5, count: 3 },
    ];
    const [p50, p100] = percentilesFromBins(bins, [50, 100]);
    expect(p50).toMatchObject({ p: 50, lower: 1.5, upper: 2.5 });
    expect(p50?.ms).toBeCloseTo(1.5 + 1 / 3, 12);
    expect(p100).toMatchObject({ p: 100, ms: 2.5, lower: 1.5, upper: 2.5 });
  });

  it('gives none when nothing is counted', () => {
    expect(percentilesFromBins([], [50, 99])).toEqual([]);
  });
});
