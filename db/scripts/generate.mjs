// `db:generate`: drizzle-kit's generate (arguments passed on, e.g. --name), then the new
// migration's hashes recorded in db/migrations.sha256 so that CI holds it unchanged. A
// --custom migration is generated empty: its hashes are recorded once its SQL is written.
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
execFileSync('npx', ['drizzle-kit', 'generate', ...args], { stdio: 'inherit' });
if (args.includes('--custom')) {
  console.log('write the SQL, then: pnpm --filter @meshbench/db db:record');
} else {
  execFileSync(process.execPath, ['scripts/migrations-lock.mjs', '--record'], {
    stdio: 'inherit',
  });
}
