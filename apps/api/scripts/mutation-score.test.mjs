// The mutation check's arithmetic: Stryker's score per file, and a drop below the baseline
// failing the check (run by npm run mutate:check before the check itself).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropsOf, scoresOf } from './mutation-score.mjs';

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
