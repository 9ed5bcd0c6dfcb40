// The mutation check's arithmetic: Stryker's score per file, and a drop below the baseline
// failing the check (run by npm run mutate:check before the check itself).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropsOf, scoresOf, testsOf } from './mutation-score.mjs';

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
