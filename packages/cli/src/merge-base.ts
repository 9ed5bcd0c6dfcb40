// The baseline of a pull request: the newest run on its target branch at or before the
// commit the PR branched from (its merge base), so a PR is held to what it started from and
// not to whatever landed on the target since. Where the CI system gives the merge base it is
// read (GitLab: CI_MERGE_REQUEST_DIFF_BASE_SHA); else git computes it against the target
// (GitHub: GITHUB_BASE_REF); MESHBENCH_TARGET_BRANCH and MESHBENCH_MERGE_BASE override both.
import { execFileSync } from 'node:child_process';
import type { Env } from './ci-labels.ts';

export interface MergeBase {
  /** The branch the PR merges into. */
  target: string;
  sha: string;
  /** The merge base's commit time (RFC 3339), when git could tell. */
  committedAt?: string | undefined;
}

export type Git = (args: string[]) => string | undefined;

/** git, or undefined when it is not there or fails (a shallow clone, no repository). */
export const systemGit: Git = (args) => {
  try {
    return execFileSync('git', args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
};

export function mergeBaseOf(env: Env, git: Git = systemGit): MergeBase | undefined {
  const target =
    env.MESHBENCH_TARGET_BRANCH || env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME || env.GITHUB_BASE_REF;
  if (!target) return undefined;
  const sha =
    env.MESHBENCH_MERGE_BASE ||
    env.CI_MERGE_REQUEST_DIFF_BASE_SHA ||
    git(['merge-base', 'HEAD', `origin/${target}`]);
  if (!sha) return undefined;
  const committedAt = git(['show', '-s', '--format=%cI', sha]) || undefined;
  return { target, sha, committedAt };
}

export interface BranchRun {
  id: string;
  startedAt: string;
  labels: Record<string, string>;
}

/**
 * Of the target branch's finished runs (newest first): the newest run of the merge base
 * commit itself, else, when its commit time is known, the newest run started at or before
 * it (a run of an older commit of the target).
 */
export function mergeBaseRun<R extends BranchRun>(
  runs: readonly R[],
  mb: MergeBase,
): R | undefined {
  const exact = runs.find((r) => r.labels.sha === mb.sha);
  if (exact) return exact;
  if (!mb.committedAt) return undefined;
  const before = Date.parse(mb.committedAt);
  return runs.find((r) => Date.parse(r.startedAt) <= before);
}
