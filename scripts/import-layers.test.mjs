// The layer rules fail on a route that imports a repository, and pass a tree that goes down
// its layers in order (run by `npm run -s layers`, so CI runs it beside the rules).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { violations } from './import-layers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name) => join(here, 'fixtures', 'layers', name);

test('a route importing a repository is an upward import', () => {
  assert.deepEqual(violations(fixture('route-imports-repository')), [
    'routes/runs/runs.routes.ts -> repositories/runs.repository.ts (routes may import services, ingest, domain, export, config, errors.ts)',
  ]);
});

test('the script exits 1 and names the import', () => {
  const run = spawnSync(
    process.execPath,
    [join(here, 'import-layers.mjs'), fixture('route-imports-repository')],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(run.status, 1);
  assert.match(run.stderr, /routes\/runs\/runs\.routes\.ts -> repositories\/runs\.repository\.ts/);
});

test('routes -> services -> repositories -> domain passes', () => {
  assert.deepEqual(violations(fixture('clean')), []);
  const run = spawnSync(process.execPath, [join(here, 'import-layers.mjs'), fixture('clean')], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
});
