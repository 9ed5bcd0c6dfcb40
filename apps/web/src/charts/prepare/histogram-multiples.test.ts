import { describe, expect, it } from 'vitest';
import { prepareHistogram } from './histogram.ts';
import { commonHistogramRequest, shareHistogramAxes } from './histogram-multiples.ts';

const consulLike = {
  count: 19988,
  percentiles: [
    { p: 50, ms: 71.451 },
    { p: 90, ms: 389.675 },
    { p: 95, ms: 796.703 },
    { p: 96, ms: 962.37 },
    { p: 99, ms: 159682.596 },
  ],
  cdf: [
    { ms: -12.197, fraction: 0.00005 },
    { ms: 17.162, fraction: 0.005 },
  ],
  maxMs: 240593.969,
};
const short = {
  count: 100,
  percentiles: [
    { p: 50, ms: 20 },
    { p: 90, ms: 100 },
    { p: 99, ms: 310 },
  ],
  cdf: [{ ms: 3.5, fraction: 0.01 }],
  maxMs: 900,
};
const empty = { count: 0, percentiles: [], cdf: [], maxMs: null };

describe('commonHistogramRequest', () => {
  it('asks every run for the widest body on a linear axis', () => {
    // Consul-like: the body ends at 1,000 ms (long tail); short: P99 310 -> 400. Widest: 1,000.
    expect(commonHistogramRequest([consulLike, short, empty], 'linear')).toEqual({
      scale: 'linear',
      bins: 60,
      fromMs: 0,
      toMs: 1000,
    });
  });
  it('spans the earliest decade to the largest latency on a log axis', () => {
    // Smallest positive latency 3.5 -> 1 ms; largest 240,594 -> 250,000.
    expect(commonHistogramRequest([consulLike, short], 'log')).toEqual({
      scale: 'log',
      bins: 60,
      fromMs: 1,
      toMs: 250000,
    });
  });
  it('has nothing to ask without applications', () => {
    expect(commonHistogramRequest([empty], 'linear')).toBeNull();
    expect(commonHistogramRequest([empty], 'log')).toBeNull();
  });
});

describe('shareHistogramAxes', () => {
  it('puts every histogram on the widest x range and the tallest count', () => {
    const one = prepareHistogram({
      scale: 'linear',
      histogram: [
        { fromMs: 0, toMs: 10, count: 5 },
        { fromMs: 10, toMs: 20, count: 15 },
      ],
      underflow: 0,
      overflow: 0,
    });
    const two = prepareHistogram({
      scale: 'linear',
      histogram: [
        { fromMs: 0, toMs: 20, count: 40 },
        { fromMs: 20, toMs: 40, count: 2 },
      ],
      underflow: 0,
      overflow: 0,
    });
    const [a, b, c] = shareHistogramAxes([one, two, null]);
    for (const h of [a, b]) {
      expect(h?.domain).toEqual([0, 40]);
      // 40 / 6 = 6.7 -> a tick every 10.
      expect(h?.ticks).toEqual([0, 10, 20, 30, 40]);
      // The tallest bar is 40: both count axes go to 40.
      expect(h?.countDomain).toEqual([0, 40]);
      expect(h?.countTicks).toEqual([0, 10, 20, 30, 40]);
    }
    // Each keeps its own bars and tallest bar.
    expect(a?.bars).toHaveLength(2);
    expect(a?.maxCount).toBe(15);
    expect(c).toBeNull();
  });
});
