import { defineConfig } from 'vitest/config';

// Two tiers: `test` (unit and integration) and `test:faults` (*.faults.test.ts: kills,
// aborts, restarts, outages and the bad-input corpus, against real processes and clusters).
const faults = process.env.MESHBENCH_TEST_TIER === 'faults';

export default defineConfig({
  test: {
    include: faults ? ['src/**/*.faults.test.ts'] : ['src/**/*.test.ts'],
    exclude: faults ? [] : ['src/**/*.faults.test.ts', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Fault tests start servers and clusters of their own: one file at a time.
    ...(faults ? { fileParallelism: false } : {}),
    passWithNoTests: faults,
  },
});
