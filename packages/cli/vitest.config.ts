import { defineConfig } from 'vitest/config';

// Two tiers, as in apps/api: `test` (unit and integration) and `test:faults`
// (*.faults.test.ts: the API or the CLI killed mid-upload, against real processes).
const faults = process.env.MESHBENCH_TEST_TIER === 'faults';

export default defineConfig({
  test: {
    include: faults ? ['src/**/*.faults.test.ts'] : ['src/**/*.test.ts'],
    exclude: faults ? [] : ['src/**/*.faults.test.ts', '**/node_modules/**'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    ...(faults ? { fileParallelism: false } : {}),
    passWithNoTests: faults,
  },
});
