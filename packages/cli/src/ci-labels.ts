// Labels a run gets from the CI system it was created in: commit, branch, PR, run URL.
export type Env = Record<string, string | undefined>;

export interface CiLabels {
  ci?: string;
  sha?: string;
  branch?: string;
  pr?: string;
  url?: string;
}

const clean = (labels: CiLabels): Record<string, string> =>
  Object.fromEntries(
    Object.entries(labels).filter(([, v]) => v !== undefined && v !== ''),
  ) as Record<string, string>;

export function ciLabels(env: Env): Record<string, string> {
  if (env.GITHUB_ACTIONS === 'true') {
    const pr = /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? '')?.[1];
    return clean({
      ci: 'github-actions',
      sha: env.GITHUB_SHA,
      // On a pull request GITHUB_REF_NAME is "123/merge"; the branch is GITHUB_HEAD_REF.
      branch: env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME,
      pr,
      url:
        env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
          ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
          : undefined,
    });
  }
  if (env.GITLAB_CI === 'true') {
    return clean({
      ci: 'gitlab',
      sha: env.CI_COMMIT_SHA,
      branch:
        env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME || env.CI_COMMIT_BRANCH || env.CI_COMMIT_REF_NAME,
      pr: env.CI_MERGE_REQUEST_IID,
      url: env.CI_JOB_URL ?? env.CI_PIPELINE_URL,
    });
  }
  if (env.CIRCLECI === 'true') {
    return clean({
      ci: 'circleci',
      sha: env.CIRCLE_SHA1,
      branch: env.CIRCLE_BRANCH,
      pr: env.CIRCLE_PR_NUMBER ?? /\/pull\/(\d+)$/.exec(env.CIRCLE_PULL_REQUEST ?? '')?.[1],
      url: env.CIRCLE_BUILD_URL,
    });
  }
  if (env.BUILDKITE === 'true') {
    return clean({
      ci: 'buildkite',
      sha: env.BUILDKITE_COMMIT,
      branch: env.BUILDKITE_BRANCH,
      pr:
        env.BUILDKITE_PULL_REQUEST && env.BUILDKITE_PULL_REQUEST !== 'false'
          ? env.BUILDKITE_PULL_REQUEST
          : undefined,
      url: env.BUILDKITE_BUILD_URL,
    });
  }
  if (env.JENKINS_URL) {
    return clean({
      ci: 'jenkins',
      sha: env.GIT_COMMIT,
      branch: env.CHANGE_BRANCH || env.BRANCH_NAME || env.GIT_BRANCH?.replace(/^origin\//, ''),
      pr: env.CHANGE_ID,
      url: env.BUILD_URL,
    });
  }
  return {};
}
