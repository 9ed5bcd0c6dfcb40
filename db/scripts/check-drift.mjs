// Fails when db/src/schema and the committed migrations disagree: generating must be a no-op.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { relative } from 'node:path';

// drizzle-kit wants a relative --out, so the scratch copy lives under db/.
const out = relative(process.cwd(), mkdtempSync('.drift-'));
try {
  cpSync('migrations', out, { recursive: true });
  const before = readdirSync(out).length;
  const printed = execFileSync(
    'npx',
    [
      'drizzle-kit',
      'generate',
      '--dialect=postgresql',
      '--schema=./src/schema/index.ts',
      `--out=${out}`,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const after = readdirSync(out).length;
  if (after !== before || !/No schema changes/i.test(printed)) {
    console.error(printed);
    console.error(
      'db/src/schema has changes with no migration: run `pnpm --filter @meshbench/db db:generate` and commit db/migrations.',
    );
    process.exitCode = 1;
  } else {
    console.log('migrations match db/src/schema');
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
