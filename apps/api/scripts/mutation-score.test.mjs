// The mutation check's arithmetic: Stryker's score per file, and a drop below the baseline
// failing the check (run by npm run mutate:check before the check itself).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  dropsOf,
  heldToCheck,
  IN_SCOPE,
  scoresOf,
  testsOf,
  withScores,
} from './mutation-score.mjs';

const report = (statuses) => ({
  files: { 'src/domain/x.ts': { mutants: statuses.map((status) => ({ status })) } },
});

test('the score counts killed and timed-out mutants over all but errors and ignored ones', () => {
  const s = scoresOf(
    report(['Killed', 'Killed', 'Timeout', 'Survived', 'NoCoverage', 'CompileError', 'Ignored']),
  );
  // 3 detected of 5 valid.
  assert.deepEqual(s['src/domain/x.ts'], {
    score: 60,
    killed: 2,
    survived: 1,
    timeout: 1,
    noCoverage: 1,
  });
});

test('a file scoring below its baseline is a drop; equal, above or unheld is not', () => {
  const baseline = { 'a.ts': { score: 98.15 }, 'b.ts': { score: 100 }, 'c.ts': { score: 80 } };
  const scores = { 'a.ts': { score: 97.22 }, 'b.ts': { score: 100 }, 'c.ts': { score: 85 } };
  assert.deepEqual(dropsOf(baseline, scores, ['a.ts', 'b.ts', 'c.ts', 'd.ts']), [
    'a.ts: 98.15 % -> 97.22 %',
  ]);
  // A file whose mutants all vanished (no score) counts as a drop, not as a pass.
  assert.deepEqual(dropsOf(baseline, {}, ['b.ts']), ['b.ts: 100 % -> null %']);
});

test("a file's tests: x.test.ts, x.*.test.ts, and x-y.test.ts when no x-y.ts is there", () => {
  const names = [
    'hdr.ts',
    'hdr.property.test.ts',
    'hdr-bounds.test.ts',
    'hdr-plain.test.ts',
    'hdr-hostile.test-fixtures.ts',
    'hdr-log.ts',
    'hdr-log.test.ts',
    'hdr.int.test.ts',
    'hdr.medium.test.ts',
    'hdrx.test.ts',
  ];
  assert.deepEqual(testsOf('src/domain/hdr.ts', names), [
    'src/domain/hdr.property.test.ts',
    'src/domain/hdr-bounds.test.ts',
    'src/domain/hdr-plain.test.ts',
  ]);
  assert.deepEqual(testsOf('src/domain/hdr-log.ts', names), ['src/domain/hdr-log.test.ts']);
});

test("measuring one file moves only that file's commit: another's later change is still checked", () => {
  const s = (score) => ({ score, killed: 1, survived: 0, timeout: 0, noCoverage: 0 });
  const before = {
    files: {
      'src/domain/a.ts': { commit: 'c1', measuredAt: 't1', ...s(90) },
      'src/domain/b.ts': { commit: 'c1', measuredAt: 't1', ...s(80) },
    },
  };
  const after = withScores(before, { 'src/domain/a.ts': s(95) }, ['src/domain/a.ts'], 'c2', 't2');
  assert.deepEqual(after.files['src/domain/a.ts'], { commit: 'c2', measuredAt: 't2', ...s(95) });
  assert.deepEqual(after.files['src/domain/b.ts'], before.files['src/domain/b.ts']);
  // b.ts changed between c1 and c2, a.ts only before c2: b.ts alone is checked again.
  const changed = { c1: ['src/domain/a.ts', 'src/domain/b.ts'], c2: [] };
  const since = (commit, f) => changed[commit].includes(f);
  assert.deepEqual(
    heldToCheck(after, since, () => true),
    ['src/domain/b.ts'],
  );
  // A commit this clone lacks (shallow) or none recorded: checked, not skipped.
  assert.deepEqual(
    heldToCheck(
      after,
      () => false,
      (c) => c !== 'c2',
    ),
    ['src/domain/a.ts'],
  );
  assert.deepEqual(
    heldToCheck(
      { files: { 'x.ts': { score: 1 } } },
      () => false,
      () => true,
    ),
    ['x.ts'],
  );
});

test('a file with no test of its own name: the tests beside it that import it, directly or not', () => {
  const names = [
    'metrics.ts',
    'metrics.test.ts',
    'metrics.int.test.ts',
    'values.ts',
    'message.ts',
    'reader.ts',
    'reader.test.ts',
    'unused.ts',
  ];
  const imports = {
    'metrics.test.ts': ['metrics.ts'],
    'metrics.int.test.ts': ['metrics.ts'],
    'metrics.ts': ['values.ts', 'reader.ts'],
    // An import cycle ends.
    'values.ts': ['message.ts', 'metrics.ts'],
    'message.ts': [],
    'reader.test.ts': ['reader.ts'],
    'reader.ts': ['../domain/other.ts'],
    'unused.ts': [],
  };
  const of = (f) => testsOf(`src/ingest/otlp/${f}`, names, (n) => imports[n]);
  assert.deepEqual(of('message.ts'), ['src/ingest/otlp/metrics.test.ts']);
  assert.deepEqual(of('values.ts'), ['src/ingest/otlp/metrics.test.ts']);
  // A file with tests of its own name keeps only those.
  assert.deepEqual(of('reader.ts'), ['src/ingest/otlp/reader.test.ts']);
  assert.deepEqual(of('unused.ts'), []);
});

test("a file ALSO_TESTED_WITH a sibling runs the sibling's colocated tests too, once", () => {
  const names = [
    'steps.ts',
    'steps.test.ts',
    'slot-rows.ts',
    'slot-rows.test.ts',
    'slot-rows.int.test.ts',
    'other.test.ts',
  ];
  const also = { 'src/domain/steps.ts': ['src/domain/slot-rows.ts', 'src/domain/slot-rows.ts'] };
  assert.deepEqual(
    testsOf('src/domain/steps.ts', names, () => [], also),
    ['src/domain/steps.test.ts', 'src/domain/slot-rows.test.ts'],
  );
  // The mapping is one way: the sibling keeps its own tests only.
  assert.deepEqual(
    testsOf('src/domain/slot-rows.ts', names, () => [], also),
    ['src/domain/slot-rows.test.ts'],
  );
  // load-steps.ts is measured with load-slot-rows.test.ts, which drives its slot grid.
  assert.ok(testsOf('src/domain/load-steps.ts').includes('src/domain/load-slot-rows.test.ts'));
});

test("in scope: domain/ and ingest/ sources, not tests nor tests' fixtures and helpers", () => {
  const inScope = [
    'src/domain/tail-causes.ts',
    'src/ingest/results/sample-formats.ts',
    'src/ingest/events/clock-bytes.ts',
  ];
  const outOfScope = [
    'src/domain/tail-causes.test.ts',
    'src/domain/load-gate.entry.ts',
    'src/domain/hdr-hostile.test-fixtures.ts',
    'src/ingest/results/sample-formats.test-helpers.ts',
    'src/services/runs.service.ts',
  ];
  assert.deepEqual(
    [...inScope, ...outOfScope].filter((f) => IN_SCOPE.test(f)),
    inScope,
  );
});
