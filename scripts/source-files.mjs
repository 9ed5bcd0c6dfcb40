// The TypeScript sources under a folder and where a relative import of theirs lands: shared
// by the import checks (import-cycles.mjs, import-layers.mjs).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const SOURCE = /\.(ts|tsx)$/;

/** Every .ts/.tsx file below `dir`, node_modules, dist and fixtures left out. */
export function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist' && name !== 'fixtures') sources(path, out);
    } else if (SOURCE.test(name)) out.push(path);
  }
  return out;
}

/** The file a relative import `spec` in `from` names, or null when there is none. */
export function target(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}
