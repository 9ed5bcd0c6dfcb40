import { describe, expect, it } from 'vitest';
import { mergeBaseOf, mergeBaseRun } from './merge-base.ts';

const run = (id: string, startedAt: string, sha: string) => ({ id, startedAt, labels: { sha } });
// Newest first, as the API lists them.
const runs = [
  run('r3', '2026-03-03T10:00:00Z', 'ccc'),
  run('r2', '2026-03-02T10:00:00Z', 'bbb'),
  run('r1', '2026-03-01T10:00:00Z', 'aaa'),
];

describe('mergeBaseRun', () => {
  it('takes the run of the merge base commit itself', () => {
    expect(mergeBaseRun(runs, { target: 'main', sha: 'bbb' })?.id).toBe('r2');
  });
  it('else the newest run started at or before the merge base was committed', () => {
    const mb = { target: 'main', sha: 'zzz', committedAt: '2026-03-02T12:00:00+00:00' };
    expect(mergeBaseRun(runs, mb)?.id).toBe('r2');
    expect(mergeBaseRun(runs, { ...mb, committedAt: '2026-02-01T00:00:00Z' })).toBeUndefined();
    expect(mergeBaseRun(runs, { target: 'main', sha: 'zzz' })).toBeUndefined();
  });
});

describe('mergeBaseOf', () => {
  const noGit = () => undefined;
  it("reads GitLab's merge request variables", () => {
    expect(
      mergeBaseOf(
        { CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main', CI_MERGE_REQUEST_DIFF_BASE_SHA: 'abc' },
        noGit,
      ),
    ).toEqual({ target: 'main', sha: 'abc', committedAt: undefined });
  });
  it('asks git for the merge base against the target on GitHub, and its commit time', () => {
    const calls: string[][] = [];
    const git = (args: string[]) => {
      calls.push(args);
      return args[0] === 'merge-base' ? 'def' : '2026-03-02T12:00:00+00:00';
    };
    expect(mergeBaseOf({ GITHUB_BASE_REF: 'main' }, git)).toEqual({
      target: 'main',
      sha: 'def',
      committedAt: '2026-03-02T12:00:00+00:00',
    });
    expect(calls).toEqual([
      ['merge-base', 'HEAD', 'origin/main'],
      ['show', '-s', '--format=%cI', 'def'],
    ]);
  });
  it('is undefined outside a pull request', () => {
    expect(mergeBaseOf({}, noGit)).toBeUndefined();
  });
});
