// Counts the files over 300 lines and the functions over 100 lines in the product's source
// (issue 28's before/after counts), so the count can be repeated. Tests, fixtures and
// generated code are counted apart. Usage: node scripts/code-size.mjs [--list] [dir...]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const DEFAULT_DIRS = ['apps/api/src', 'apps/web/src', 'db/src'];
const FILE_LIMIT = 300;
const FUNCTION_LIMIT = 100;

const args = process.argv.slice(2);
const list = args.includes('--list');
let dirs = args.filter((a) => !a.startsWith('--'));
if (dirs.length === 0) {
  const packages = readdirSync('packages')
    .map((p) => join('packages', p, 'src'))
    .filter((p) => statSync(p, { throwIfNoEntry: false })?.isDirectory());
  dirs = [...DEFAULT_DIRS, ...packages];
}

function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist' && name !== 'fixtures') sources(path, out);
    } else if (/\.(ts|tsx|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const isTest = (p) => /\.(test|int\.test|faults\.test|test-fixtures)\.tsx?$/.test(p);
const isGenerated = (text) =>
  /^\/\/ (Code )?generated|@generated|DO NOT EDIT/im.test(text.slice(0, 400));

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

function nameOf(node, sf) {
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  if (parent && ts.isCallExpression(parent))
    return `(callback of ${parent.expression.getText(sf).slice(0, 40)})`;
  return '(anonymous)';
}

function longFunctions(path, text) {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (FUNCTION_KINDS.has(node.kind) && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.end).line;
      const lines = end - start + 1;
      if (lines > FUNCTION_LIMIT) found.push({ name: nameOf(node, sf), line: start + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const groups = { source: { files: [], functions: [] }, tests: { files: [], functions: [] } };
let read = 0;
let generated = 0;
for (const dir of dirs) {
  for (const path of sources(resolve(dir))) {
    const text = readFileSync(path, 'utf8');
    if (isGenerated(text)) {
      generated++;
      continue;
    }
    read++;
    const rel = relative(process.cwd(), path);
    const group = isTest(rel) ? groups.tests : groups.source;
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > FILE_LIMIT) group.files.push({ rel, lines });
    for (const f of longFunctions(path, text)) group.functions.push({ rel, ...f });
  }
}

console.log(`code-size: ${read} files read (${generated} generated left out) in ${dirs.join(' ')}`);
for (const [label, g] of Object.entries(groups)) {
  console.log(
    `${label}: ${g.files.length} files over ${FILE_LIMIT} lines, ${g.functions.length} functions over ${FUNCTION_LIMIT} lines`,
  );
  if (!list) continue;
  for (const f of g.files.sort((a, b) => b.lines - a.lines))
    console.log(`  file ${f.lines} ${f.rel}`);
  for (const f of g.functions.sort((a, b) => b.lines - a.lines))
    console.log(`  function ${f.lines} ${f.rel}:${f.line} ${f.name}`);
}
