import { defineConfig } from 'vitest/config';
import { tierFiles } from '../../vitest.tiers.ts';

// The tiers (unit, int, faults), as in apps/api: see vitest.tiers.ts. The faults are the API
// or the CLI killed mid-upload, against real processes.
const faults = process.env.MESHBENCH_TEST_TIER === 'faults';

export default defineConfig({
  test: {
    ...tierFiles(),
    testTimeout: 120_000,
    hookTimeout: 120_000,
    ...(faults ? { fileParallelism: false } : {}),
    passWithNoTests: faults,
  },
});
