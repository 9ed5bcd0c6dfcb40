#!/usr/bin/env node
// The `meshbench` command as the workspace links it (`npx meshbench` in a checkout): the
// built CLI, dist/cli.js. This file exists before any build, so that pnpm links the command
// on a fresh install; dist/cli.js comes from `npm run build` (or `npm start`).
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(built)) {
  console.error('meshbench: the CLI is not built yet; run `npm run build` first');
  process.exit(2);
}
await import(built.href);
