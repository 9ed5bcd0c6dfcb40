#!/usr/bin/env node
// Runs the pnpm version pinned in package.json's packageManager field, fetched by npx,
// so `npm start` and `npm test` need nothing but Node.js and npm on the machine.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const pinned = String(pkg.packageManager ?? '');
if (!pinned.startsWith('pnpm@')) {
  console.error('package.json must pin pnpm in "packageManager" (pnpm@<version>)');
  process.exit(1);
}
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const result = spawnSync(npx, ['--yes', pinned, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
