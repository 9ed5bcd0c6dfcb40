import { defineConfig } from 'vitest/config';

// The unit tests Stryker runs against each mutant of the rank rules (stryker.config.mjs):
// those that reach the shared nearestRank and lifecycle's rankFor. Self-contained because
// Stryker runs from a sandbox copy of apps/api where ../../vitest.tiers.ts is absent.
export default defineConfig({
  test: {
    include: [
      'src/domain/lifecycle.test.ts',
      'src/domain/history-metrics.test.ts',
      'src/domain/run-headline.test.ts',
      'src/domain/propagation-stats.test.ts',
      'src/domain/churn.test.ts',
      'src/domain/coverage.test.ts',
      'src/domain/tail-causes.test.ts',
    ],
  },
});
