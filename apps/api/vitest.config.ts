import { defineConfig } from 'vitest/config';
import { tierFiles } from '../../vitest.tiers.ts';

// The tiers (unit, medium, int, faults) are chosen by MESHBENCH_TEST_TIER: see vitest.tiers.ts.
const faults = process.env.MESHBENCH_TEST_TIER === 'faults';

export default defineConfig({
  test: {
    ...tierFiles(),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Fault tests start servers and clusters of their own: one file at a time.
    ...(faults ? { fileParallelism: false } : {}),
    passWithNoTests: faults,
  },
});
