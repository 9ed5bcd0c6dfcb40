import { describe, expect, it } from 'vitest';
import { ciLabels } from './ci-labels.ts';

describe('ciLabels', () => {
  it('reads a GitHub Actions pull request', () => {
    expect(
      ciLabels({
        GITHUB_ACTIONS: 'true',
        GITHUB_SHA: 'abc123',
        GITHUB_REF: 'refs/pull/42/merge',
        GITHUB_REF_NAME: '42/merge',
        GITHUB_HEAD_REF: 'feature/faster-xds',
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'acme/mesh',
        GITHUB_RUN_ID: '987',
      }),
    ).toEqual({
      ci: 'github-actions',
      sha: 'abc123',
      branch: 'feature/faster-xds',
      pr: '42',
      url: 'https://github.com/acme/mesh/actions/runs/987',
    });
  });
  it('reads a GitHub Actions push to a branch', () => {
    expect(
      ciLabels({
        GITHUB_ACTIONS: 'true',
        GITHUB_SHA: 's',
        GITHUB_REF: 'refs/heads/main',
        GITHUB_REF_NAME: 'main',
        GITHUB_HEAD_REF: '',
      }),
    ).toEqual({
      ci: 'github-actions',
      sha: 's',
      branch: 'main',
    });
  });
  it('reads a GitLab merge request pipeline', () => {
    expect(
      ciLabels({
        GITLAB_CI: 'true',
        CI_COMMIT_SHA: 'def',
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'mr-branch',
        CI_COMMIT_REF_NAME: 'refs/merge-requests/7/head',
        CI_MERGE_REQUEST_IID: '7',
        CI_JOB_URL: 'https://gitlab.example/job/1',
      }),
    ).toEqual({
      ci: 'gitlab',
      sha: 'def',
      branch: 'mr-branch',
      pr: '7',
      url: 'https://gitlab.example/job/1',
    });
  });
  it('reads Jenkins, CircleCI and Buildkite, and nothing outside CI', () => {
    expect(
      ciLabels({ JENKINS_URL: 'x', GIT_COMMIT: 'c', GIT_BRANCH: 'origin/main', BUILD_URL: 'u' }),
    ).toEqual({ ci: 'jenkins', sha: 'c', branch: 'main', url: 'u' });
    expect(
      ciLabels({
        CIRCLECI: 'true',
        CIRCLE_SHA1: 'c',
        CIRCLE_BRANCH: 'b',
        CIRCLE_PULL_REQUEST: 'https://github.com/a/b/pull/9',
      }),
    ).toMatchObject({ pr: '9' });
    expect(
      ciLabels({
        BUILDKITE: 'true',
        BUILDKITE_COMMIT: 'c',
        BUILDKITE_BRANCH: 'b',
        BUILDKITE_PULL_REQUEST: 'false',
      }),
    ).toEqual({ ci: 'buildkite', sha: 'c', branch: 'b' });
    expect(ciLabels({ HOME: '/root' })).toEqual({});
  });
});
