import { describe, expect, it } from 'vitest';
import { coverage, coverageProxies, coverageRanks } from './coverage.ts';

const PERCENTS = [50, 90, 96.6, 99, 100];

describe('coverage', () => {
  // Ten proxies, latencies 10, 20, ... 100 ms (in microseconds), sorted.
  const sorted = Array.from({ length: 10 }, (_, i) => (i + 1) * 10_000);
  const at = (rank: number) => sorted[rank - 1] as number;

  it('of the observed proxies: ranks 5, 9, 10, 10, 10 of 10', () => {
    // 50 % of 10 = 5; 90 % = 9; 96.6 % = 9.66 -> 10; 99 % = 9.9 -> 10; 100 % = 10.
    expect(coverage(PERCENTS, 10, 10, at)).toEqual([
      { percent: 50, proxies: 5, ms: 50 },
      { percent: 90, proxies: 9, ms: 90 },
      { percent: 96.6, proxies: 10, ms: 100 },
      { percent: 99, proxies: 10, ms: 100 },
      { percent: 100, proxies: 10, ms: 100 },
    ]);
  });

  it('of 12 expected proxies, 10 seen: the last ones never reached', () => {
    // 50 % of 12 = 6; 90 % = 10.8 -> 11 (> 10 seen); 96.6 % = 11.592 -> 12; 99 % -> 12; 100 % -> 12.
    expect(coverage(PERCENTS, 12, 10, at)).toEqual([
      { percent: 50, proxies: 6, ms: 60 },
      { percent: 90, proxies: 11, ms: null },
      { percent: 96.6, proxies: 12, ms: null },
      { percent: 99, proxies: 12, ms: null },
      { percent: 100, proxies: 12, ms: null },
    ]);
    expect(coverageRanks(PERCENTS, 12, 10)).toEqual([6]);
  });

  it('96.6 % of 178,000 is 171,948 proxies (171,948 exactly, not one more)', () => {
    // 0.966 x 178,000 = 171,948.0 exactly; floating point gives 171948.00000000003.
    expect(coverageProxies(96.6, 178_000)).toBe(171_948);
    expect(coverageProxies(50, 1)).toBe(1);
  });

  it('skewed clocks: a coverage time may be negative, as the latency is', () => {
    const skewed = [-5_000, -1_000, 2_000, 4_000];
    expect(coverage([50, 100], 4, 4, (r) => skewed[r - 1] as number)).toEqual([
      { percent: 50, proxies: 2, ms: -1 },
      { percent: 100, proxies: 4, ms: 4 },
    ]);
  });

  it('with no base (nothing expected, nothing seen): no proxies, no time', () => {
    expect(coverage([50], 0, 0, at)).toEqual([{ percent: 50, proxies: 0, ms: null }]);
    expect(coverageRanks([50], 0, 0)).toEqual([]);
  });
});

describe('coverage at the first and last proxy', () => {
  const sorted = Array.from({ length: 10 }, (_, i) => (i + 1) * 10_000);
  const at = (rank: number) => sorted[rank - 1] as number;

  it('reads the first proxy for a share of one proxy or less, and the last seen for all', () => {
    // 10 % of 10 is proxy 1; 0.1 % of 10 is still proxy 1 (at least one); 100 % is proxy 10.
    expect(coverage([10, 0.1, 100], 10, 10, at)).toEqual([
      { percent: 10, proxies: 1, ms: 10 },
      { percent: 0.1, proxies: 1, ms: 10 },
      { percent: 100, proxies: 10, ms: 100 },
    ]);
    expect(coverageRanks([10, 0.1, 100], 10, 10)).toEqual([1, 1, 10]);
  });

  it('reads the ranks of every share reached, and none past the proxies seen', () => {
    expect(coverageRanks(PERCENTS, 10, 10)).toEqual([5, 9, 10, 10, 10]);
    // 9 seen of 10: 50 % and 90 % reached, not 96.6 % (proxy 10).
    expect(coverageRanks(PERCENTS, 10, 9)).toEqual([5, 9]);
    expect(coverage([90, 96.6], 10, 9, at)).toEqual([
      { percent: 90, proxies: 9, ms: 90 },
      { percent: 96.6, proxies: 10, ms: null },
    ]);
  });

  it('of no base, reaches nothing even when proxies were seen', () => {
    expect(coverageProxies(50, 0)).toBe(0);
    expect(coverageRanks([50, 100], 0, 3)).toEqual([]);
    expect(coverage([50], 0, 3, at)).toEqual([{ percent: 50, proxies: 0, ms: null }]);
  });
});
