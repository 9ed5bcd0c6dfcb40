// Mutation testing of the rank rules (issue 28): the shared nearest rank
// (src/domain/nearest-rank.ts) and lifecycle's "time to N % joined".
// `npm run mutate` in apps/api; not part of CI (a run takes minutes on 2 cores).
import { createRequire } from 'node:module';

// Under pnpm, Stryker's core cannot see its sibling plugins by name: load the runner by path.
const require = createRequire(import.meta.url);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  plugins: [require.resolve('@stryker-mutator/vitest-runner')],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  mutate: ['src/domain/nearest-rank.ts', 'src/domain/lifecycle.ts'],
  coverageAnalysis: 'perTest',
  concurrency: 1,
  reporters: ['clear-text', 'progress', 'json'],
  // scripts/mutation-score.mjs reads its own report (changed files only) from elsewhere.
  jsonReporter: {
    fileName: process.env.MESHBENCH_STRYKER_REPORT ?? 'reports/mutation/mutation.json',
  },
  tempDirName: '.stryker-tmp',
  // scripts/mutation-score.mjs gives each run its own .stryker-tmp-<pid>: not copied into another's sandbox.
  ignorePatterns: ['/.stryker-tmp*'],
  cleanTempDir: true,
};
