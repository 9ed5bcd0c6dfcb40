import { defineConfig } from 'vitest/config';

// The unit tests Stryker runs against each mutant: those that reach the shared nearestRank
// and lifecycle's rankFor (`npm run mutate`), and with them the colocated tests of the files
// scripts/mutation-score.mjs mutates (MESHBENCH_STRYKER_TESTS); for files outside domain/ it
// leaves the rank tests out (MESHBENCH_STRYKER_RANK_TESTS=0): none of them imports those files.
// Self-contained because Stryker runs from a sandbox copy of apps/api where
// ../../vitest.tiers.ts is absent.
const RANK_TESTS = [
  'src/domain/lifecycle.test.ts',
  'src/domain/history-metrics.test.ts',
  'src/domain/run-headline.test.ts',
  'src/domain/propagation-stats.test.ts',
  'src/domain/propagation-stats.property.test.ts',
  'src/domain/churn.test.ts',
  'src/domain/coverage.test.ts',
  'src/domain/tail-causes.test.ts',
];

export default defineConfig({
  test: {
    // Instrumented code runs several times slower: property tests must not time out in the dry
    // run. tick-counts' generated cases fill its 2^22-tick dense array and scan it: 60 s was
    // not enough for one of them on 2 busy cores (load 14), 180 s is.
    testTimeout: 180_000,
    setupFiles: ['scripts/stryker-setup.ts'],
    include: [
      ...new Set([
        ...(process.env.MESHBENCH_STRYKER_RANK_TESTS === '0' ? [] : RANK_TESTS),
        ...(process.env.MESHBENCH_STRYKER_TESTS?.split(',').filter(Boolean) ?? []),
      ]),
    ],
  },
});
