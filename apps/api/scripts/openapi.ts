// Writes the OpenAPI document the app serves at /docs/json to docs/openapi.json, so every API
// change shows in a diff; `--check` fails when the committed file differs from the code.
// The app is built in memory (embedded database, no StatsD listener, no demo): no network,
// no DATABASE_URL, and nothing from the caller's environment.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/env.ts';

const target = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

/** Keys sorted at every depth, so the text depends only on the document's content. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

async function render(): Promise<string> {
  const config = loadConfig({
    STATSD_PORT: '0',
    MESHBENCH_DEMO: '0',
    MESHBENCH_LOG_LEVEL: 'silent',
  });
  const app = await buildApp(config, { logger: false, inMemory: true });
  try {
    const response = await app.inject({ method: 'GET', url: '/docs/json' });
    if (response.statusCode !== 200) {
      throw new Error(`GET /docs/json answered ${response.statusCode}: ${response.body}`);
    }
    return `${JSON.stringify(sortKeys(JSON.parse(response.body)), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

const check = process.argv.includes('--check');
const text = await render();
if (check) {
  let committed: string | undefined;
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    committed = undefined;
  }
  if (committed !== text) {
    console.error(
      committed === undefined
        ? 'docs/openapi.json is missing: run `npm run openapi` and commit it.'
        : 'docs/openapi.json is stale: run `npm run openapi` and commit it.',
    );
    process.exitCode = 1;
  } else {
    console.log('docs/openapi.json matches the routes');
  }
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
