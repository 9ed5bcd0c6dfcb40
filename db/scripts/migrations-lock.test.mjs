// migrations-lock on a copy of the real migrations: an edit, a removal, a journal entry
// rewritten and an unrecorded migration each fail by name; recording adds only new ones.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compare, formatList, hashMigrations, parseList, record } from './migrations-lock.mjs';

const real = fileURLToPath(new URL('../migrations', import.meta.url));
const realList = fileURLToPath(new URL('../migrations.sha256', import.meta.url));

function copy(t) {
  const dir = mkdtempSync(`${tmpdir()}/migrations-`);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(real, dir, { recursive: true });
  return dir;
}

test('the committed list matches the committed migrations', () => {
  const { landed, unlisted } = compare(
    parseList(readFileSync(realList, 'utf8')),
    hashMigrations(real),
  );
  assert.deepEqual([...landed, ...unlisted], []);
});

test('the list holds sha256sum of each SQL file (checked with another tool)', (t) => {
  const list = parseList(readFileSync(realList, 'utf8'));
  // sha256sum -c reads the same "<hash>  <name>" lines; the journal entries are not files.
  const files = [...list].filter(([name]) => !name.includes('#'));
  const dir = copy(t);
  writeFileSync(`${dir}/SHA256SUMS`, files.map(([n, h]) => `${h}  ${n}\n`).join(''));
  const out = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' });
  assert.equal(out.trim().split('\n').length, files.length);
  assert.match(out, /0000_init\.sql: OK/);
});

test('an edited, removed or re-dated migration is named', (t) => {
  const dir = copy(t);
  const list = parseList(readFileSync(realList, 'utf8'));
  appendFileSync(`${dir}/0003_metrics.sql`, '\n-- a late fix\n');
  unlinkSync(`${dir}/meta/0002_snapshot.json`);
  const journalFile = `${dir}/meta/_journal.json`;
  const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
  journal.entries[1].when += 1;
  writeFileSync(journalFile, JSON.stringify(journal, null, 2));
  const { landed, unlisted } = compare(list, hashMigrations(dir));
  const before = createHash('sha256')
    .update(readFileSync(`${real}/0003_metrics.sql`))
    .digest('hex');
  assert.deepEqual(unlisted, []);
  assert.equal(landed.length, 3);
  assert.match(landed[0], /^db\/migrations\/0003_metrics\.sql was edited after it landed/);
  assert.ok(landed[0].includes(before.slice(0, 12)));
  assert.equal(landed[1], 'db/migrations/meta/0002_snapshot.json was removed after it landed');
  assert.match(landed[2], /_journal\.json#0001_load_results was edited/);
  assert.throws(() => record(list, hashMigrations(dir)), /0003_metrics\.sql was edited/);
});

test('a new migration fails until recorded; recording keeps every landed line', (t) => {
  const dir = copy(t);
  const list = parseList(readFileSync(realList, 'utf8'));
  writeFileSync(`${dir}/0099_new.sql`, 'CREATE TABLE t (x int);\n');
  const journal = JSON.parse(readFileSync(`${dir}/meta/_journal.json`, 'utf8'));
  journal.entries.push({ idx: 99, version: '7', when: 1, tag: '0099_new', breakpoints: true });
  writeFileSync(`${dir}/meta/_journal.json`, JSON.stringify(journal));
  const { landed, unlisted } = compare(list, hashMigrations(dir));
  assert.deepEqual(landed, []);
  assert.equal(unlisted.length, 2);
  assert.match(unlisted[0], /0099_new\.sql is not in db\/migrations\.sha256: .*db:generate/);
  const next = parseList(formatList(record(list, hashMigrations(dir))));
  assert.equal(next.size, list.size + 2);
  for (const [name, hash] of list) assert.equal(next.get(name), hash);
  assert.equal(
    next.get('0099_new.sql'),
    createHash('sha256').update('CREATE TABLE t (x int);\n').digest('hex'),
  );
  assert.deepEqual(compare(next, hashMigrations(dir)), { landed: [], unlisted: [] });
});

test('a malformed list line is named by its number', () => {
  assert.throws(() => parseList('# c\nabc  0000_init.sql\n'), /line 2/);
});
