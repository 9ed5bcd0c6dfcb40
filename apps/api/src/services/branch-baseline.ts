// The runs a gate reads besides the run itself. Those a `branch:NAME` baseline stands for: the run's own project, benchmark, scenario and
// mesh, finished, on that branch, started before the run; newest first. Another mesh's runs
// of the same benchmark are another series (a Consul night is no baseline for Istio's), and a
// run posted late is held against the runs before it, not those after.
import { type Principal, readRefusal } from '../domain/access.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import { type ProjectsService, refuse } from './projects.service.ts';

export async function branchBaselineRuns(
  runs: RunsRepository,
  run: RunRow,
  branch: string,
  limit: number,
): Promise<RunRow[]> {
  const { rows } = await runs.list({
    project: run.projectId,
    benchmark: run.benchmark,
    scenario: run.scenario,
    mesh: run.meshName,
    status: 'finished',
    labels: [['branch', branch]],
    to: new Date(run.startedAt).toISOString(),
    sort: '-startedAt',
    limit: limit + 1,
    offset: 0,
    privateProjects: run.projectId,
  });
  return rows.filter((r) => r.id !== run.id).slice(0, limit);
}

/**
 * The finished runs of the run's project, benchmark and scenario, newest first (at most
 * `limit`): where a gate looks for repeats of one configuration (A/A runs) for its noise floor.
 */
export async function finishedRunsOfScenario(
  runs: RunsRepository,
  run: RunRow,
  limit = 500,
): Promise<RunRow[]> {
  const { rows } = await runs.list({
    project: run.projectId,
    benchmark: run.benchmark,
    scenario: run.scenario,
    status: 'finished',
    labels: [],
    sort: '-startedAt',
    limit,
    offset: 0,
    privateProjects: run.projectId,
  });
  return rows;
}

/**
 * The run a baseline spec names (null for `branch:NAME`, none, or no such run), refused
 * (401/403) when it belongs to another project the principal may not read: a gate's answer
 * shows the baseline's numbers.
 */
export async function readableBaselineRun(
  deps: { runs: RunsRepository; projects: Pick<ProjectsService, 'visibility'> },
  projectId: string,
  spec: string | null | undefined,
  principal: Principal,
): Promise<RunRow | null> {
  if (!spec || spec.startsWith('branch:')) return null;
  const base = await deps.runs.find(spec);
  if (base && base.projectId !== projectId) {
    const visibility = await deps.projects.visibility(base.projectId);
    refuse(readRefusal(principal, base.projectId, visibility));
  }
  return base ?? null;
}
