// The command as the README gives it: `npx meshbench` in a built checkout runs the CLI the
// workspace links from the repository's root (no install, no path to dist/).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('npx meshbench', () => {
  it('runs from the checkout’s root, as the README writes it', () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const run = spawnSync('npx', ['--no-install', 'meshbench', '--help'], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('Exit codes:');
  });
});
