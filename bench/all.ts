// Runs every bench that needs only Postgres, one after another (page-load needs Chromium and
// a built web app: `npm run page-load`), and exits 1 if any exited non-zero: a missed budget
// or a failure. A miss does not stop the others.
import { spawnSync } from 'node:child_process';

const benches = [
  'ingest-propagation',
  'pooled-ingest',
  'standby-reads',
  'statsd',
  'udp-batch',
  'otlp',
  'otlp-logs',
  'prometheus-write',
  'timeline',
  'reads',
  'upload-reads',
  'change-points',
  'parse-bounds',
  'load-gate',
  'history',
  'results',
  'k6-stream',
  'loadgen',
  'live',
  'retention',
];
const failed: string[] = [];
for (const bench of benches) {
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', `${bench}.ts`], {
    stdio: 'inherit',
  });
  if (status !== 0) failed.push(`${bench} (exit ${status})`);
}
console.log(
  failed.length ? `\nbench: FAILED ${failed.join(', ')}` : '\nbench: every bench met its budgets',
);
process.exitCode = failed.length ? 1 : 0;
