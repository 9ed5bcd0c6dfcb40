import { defineConfig } from 'vitest/config';
import { tierFiles } from '../../vitest.tiers.ts';

// The tiers (unit, medium, int, faults) are chosen by MESHBENCH_TEST_TIER: see vitest.tiers.ts.
const tier = process.env.MESHBENCH_TEST_TIER;
const faults = tier === 'faults';
// The int tier runs two files at a time (vitest's default on 2 cores is one), each worker on
// a database of its own on DATABASE_URL's server (src/test/worker-databases.ts).
const int = tier === 'int';

export default defineConfig({
  test: {
    ...tierFiles(),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Fault tests start servers and clusters of their own: one file at a time.
    ...(faults ? { fileParallelism: false } : {}),
    ...(int
      ? {
          maxWorkers: 2,
          globalSetup: ['src/test/worker-databases.ts'],
          setupFiles: ['src/test/worker-database.setup.ts'],
        }
      : {}),
    passWithNoTests: faults,
  },
});
