// The one rank rule of the product: every nearest-rank percentile (API, web, CLI) takes its
// rank from here, so a change to the rule changes every answer at once and its mutation
// tests (stryker.config.mjs) guard them all. Imported by the web as @meshbench/api/nearest-rank.

/**
 * Nearest-rank: the smallest observed value L such that at least p % of the
 * observations are <= L, i.e. the value at rank ceil(p/100 * n).
 */
export function nearestRank(p: number, n: number): number {
  // Rounded first so that 96 % of 1000 is rank 960, not 961 from 0.96 * 1000 = 960.0000000000001.
  const exact = Math.round((p / 100) * n * 1e9) / 1e9;
  return Math.min(n, Math.max(1, Math.ceil(exact)));
}

/** The lower median's rank (nearest rank 50) of n values: ceil(n / 2), 1-based. */
export const lowerMedianRank = (n: number): number => nearestRank(50, n);
