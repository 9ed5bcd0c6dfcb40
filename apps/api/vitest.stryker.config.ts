import { defineConfig } from 'vitest/config';

// The unit tests Stryker runs against each mutant. By default those that reach the shared
// nearestRank and lifecycle's rankFor (`npm run mutate`); scripts/mutation-score.mjs names
// its own list (each changed file's colocated tests with these) in MESHBENCH_STRYKER_TESTS.
// Self-contained because Stryker runs from a sandbox copy of apps/api where
// ../../vitest.tiers.ts is absent.
const RANK_TESTS = [
  'src/domain/lifecycle.test.ts',
  'src/domain/history-metrics.test.ts',
  'src/domain/run-headline.test.ts',
  'src/domain/propagation-stats.test.ts',
  'src/domain/churn.test.ts',
  'src/domain/coverage.test.ts',
  'src/domain/tail-causes.test.ts',
];

export default defineConfig({
  test: {
    include: process.env.MESHBENCH_STRYKER_TESTS?.split(',') ?? RANK_TESTS,
  },
});
