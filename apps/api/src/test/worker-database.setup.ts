// Each int-tier worker's DATABASE_URL: its own database made by worker-databases.ts, picked by
// VITEST_POOL_ID (1..maxWorkers, one worker at a time each). Read from what the run was
// started with, so running again in the same process gives the same answer.
import { inject } from 'vitest';
import { workerDatabaseUrl } from './worker-databases.ts';

const url = inject('serverDatabaseUrl');
if (url) {
  process.env.DATABASE_URL = workerDatabaseUrl(
    url,
    inject('runPid'),
    process.env.VITEST_POOL_ID ?? 1,
  );
}
