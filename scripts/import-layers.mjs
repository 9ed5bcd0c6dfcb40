// Fails when the API's source imports upward across its layers (apps/api/src/README.md,
// "Layer rules"): routes -> services -> repositories -> domain, ingest -> domain, and
// errors.ts on nothing. Each layer lists what it may import besides itself; a folder or
// file not listed (app.ts, server.ts, plugins/, demo/, test/) wires the layers together
// and may import any of them, but no layer may import it. Tests (*.test.ts and their
// *.test-fixtures.ts) may import anything. Relative imports only, type imports included:
// a type that lives upstairs still ties the floors together.
// Usage: node scripts/import-layers.mjs [api-src-dir]   (default apps/api/src)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** What each layer may import, besides its own files. */
export const LAYERS = {
  routes: ['services', 'ingest', 'domain', 'export', 'config', 'errors.ts'],
  services: ['repositories', 'ingest', 'domain', 'export', 'config', 'errors.ts'],
  repositories: ['domain', 'errors.ts'],
  ingest: ['domain', 'errors.ts'],
  export: ['domain'],
  domain: [],
  config: ['errors.ts'],
  'errors.ts': [],
};

const SOURCE = /\.(ts|tsx)$/;
const TEST = /\.(test|test-fixtures)\.tsx?$/;
const IMPORT =
  /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\sfrom\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist' && name !== 'fixtures') sources(path, out);
    } else if (SOURCE.test(name)) out.push(path);
  }
  return out;
}

function target(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/** The layer a file is in: its first folder under the root, or its name at the root. */
const layerOf = (root, file) => relative(root, file).split(sep)[0];

/** Every upward import under `root`, as `from -> to (layer -> layer)` lines. */
export function violations(root) {
  const found = [];
  for (const file of sources(root)) {
    if (TEST.test(file)) continue;
    const from = layerOf(root, file);
    const allowed = LAYERS[from];
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = target(file, match[1] ?? match[2]);
      if (!to || relative(root, to).startsWith('..')) continue;
      const toLayer = layerOf(root, to);
      if (toLayer === from) continue;
      if (allowed === undefined || allowed.includes(toLayer)) continue;
      const wiring = !(toLayer in LAYERS);
      const why = wiring
        ? `${toLayer} wires the layers together; no layer imports it`
        : `${from} may import ${allowed.length ? allowed.join(', ') : 'nothing outside itself'}`;
      found.push(`${relative(root, file)} -> ${relative(root, to)} (${why})`);
    }
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(process.argv[2] ?? 'apps/api/src');
  const found = violations(root);
  if (found.length > 0) {
    console.error(`import layers (${found.length} upward imports):\n  ${found.join('\n  ')}`);
    console.error(
      'The rules: apps/api/src/README.md, "Layer rules"; the table: scripts/import-layers.mjs',
    );
    process.exit(1);
  }
  console.log(`import-layers: ${relative(process.cwd(), root) || '.'}, no upward import`);
}
