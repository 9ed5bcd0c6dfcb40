// Coverage: how long until a given share of the proxies had a change (the Consul
// benchmark's "96.6 % within 1 s" read the other way round). Exact: the latency of the
// proxy at the nearest rank of that share, from the sorted first observations.
import type { CoveragePoint } from '@meshbench/schema';
import { nearestRank } from './nearest-rank.ts';

/**
 * The proxies that make `percent` of `base`: ceil(percent/100 x base), at least 1; none of
 * no base.
 */
export const coverageProxies = (percent: number, base: number): number =>
  base > 0 ? nearestRank(percent, base) : 0;

/** The ranks among the first observations that coverage reads (those that were reached). */
export function coverageRanks(percents: readonly number[], base: number, n: number): number[] {
  const ranks = percents.map((p) => coverageProxies(p, base));
  return ranks.filter((r) => r >= 1 && r <= n);
}

/**
 * Time to each percent of `base` proxies: the `proxies`-th smallest first-observation
 * latency, or null when fewer than that many proxies were seen. `at(rank)` reads the
 * sorted latencies (microseconds, 1-based rank).
 */
export function coverage(
  percents: readonly number[],
  base: number,
  n: number,
  at: (rank: number) => number,
): CoveragePoint[] {
  return percents.map((percent) => {
    const proxies = coverageProxies(percent, base);
    return {
      percent,
      proxies,
      ms: proxies >= 1 && proxies <= n ? at(proxies) / 1000 : null,
    };
  });
}
