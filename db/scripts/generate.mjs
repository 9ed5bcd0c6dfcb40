// `db:generate`: drizzle-kit's generate (arguments passed on, e.g. --name), then the new
// migration's hashes recorded in db/migrations.sha256 so that CI holds it unchanged.
import { execFileSync } from 'node:child_process';

execFileSync('npx', ['drizzle-kit', 'generate', ...process.argv.slice(2)], { stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/migrations-lock.mjs', '--record'], { stdio: 'inherit' });
