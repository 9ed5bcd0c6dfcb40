// Fails when the source imports in a circle: file to file anywhere under the folders given,
// and, in the web app, feature folder to feature folder (features/<a> -> features/<b> ->
// features/<a>). Relative imports only, type imports included: a cycle of types is still a
// knot to untie before either side can move. Usage: node scripts/import-cycles.mjs <dir>...
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { sources, target } from './source-files.mjs';

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\sfrom\s+)?['"](\.[^'"]+)['"]/g;

/** Every cycle found by a depth-first walk, as the list of its nodes. */
function cycles(graph) {
  const found = [];
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, 1);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 1) found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.get(next)) visit(next);
    }
    stack.pop();
    state.set(node, 2);
  };
  for (const node of graph.keys()) if (!state.get(node)) visit(node);
  return found;
}

const repo = process.cwd();
const problems = [];
let files = 0;
for (const dir of process.argv.slice(2)) {
  const list = sources(resolve(dir));
  files += list.length;
  const byFile = new Map();
  const byFeature = new Map();
  for (const file of list) {
    const deps = new Set();
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = target(file, match[1]);
      if (to) deps.add(to);
    }
    byFile.set(file, deps);
    const feature = (path) => /\/features\/([^/]+)\//.exec(path)?.[1];
    const from = feature(file);
    if (from === undefined) continue;
    if (!byFeature.has(from)) byFeature.set(from, new Set());
    for (const to of deps) {
      const f = feature(to);
      if (f !== undefined && f !== from) byFeature.get(from).add(f);
    }
  }
  for (const c of cycles(byFile))
    problems.push(`files: ${c.map((p) => relative(repo, p)).join(' -> ')}`);
  for (const c of cycles(byFeature)) problems.push(`features in ${dir}: ${c.join(' -> ')}`);
}
if (problems.length > 0) {
  console.error(`import cycles (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`import-cycles: ${files} files, no cycle`);
