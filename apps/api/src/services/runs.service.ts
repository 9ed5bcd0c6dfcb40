// The runs use case: create, list, read and finish.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type CreateRunBody,
  type FinishRunBody,
  type ListRunsQuery,
  parseLabelFilter,
  type Run,
  type RunList,
} from '@meshbench/schema';
import { type Principal, privateProjectsVisible, writeRefusal } from '../domain/access.ts';
import { compareVersions } from '../domain/versions.ts';
import { AppError, notFound } from '../errors.ts';
import type { RunRow, RunsRepository, RunWindow } from '../repositories/runs.repository.ts';
import { type ProjectsService, refuse } from './projects.service.ts';

/** 128 random bits, base64url: the unguessable share id of a run. */
export const newSlug = () => randomBytes(16).toString('base64url');

export function toRun(row: RunRow): Run {
  return {
    id: row.id,
    slug: row.slug,
    projectId: row.projectId,
    benchmark: row.benchmark,
    scenario: row.scenario,
    mesh: { name: row.meshName, version: row.meshVersion },
    platform: row.platform,
    topology: row.topology,
    environment: row.environment,
    labels: row.labels,
    status: row.status as Run['status'],
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    changes: row.changeCount,
  };
}

export function runsService(deps: {
  runs: RunsRepository;
  projects: ProjectsService;
  /** Moves metric points held for a run not created yet into this one; returns how many. */
  claimHeld: (run: RunWindow) => Promise<number>;
}) {
  const { runs, projects, claimHeld } = deps;
  return {
    /** The stored run, for access checks; undefined when there is none. */
    find: (idOrSlug: string) => runs.find(idOrSlug),

    /** The project of a run by id, the run stored or deleted (its audit row); else undefined. */
    projectOf: async (runId: string): Promise<string | undefined> =>
      (await runs.find(runId))?.projectId ?? (await runs.deletedProjectOf(runId)),

    async create(body: CreateRunBody, principal: Principal): Promise<Run> {
      const projectId = await projects.projectForNewRun(body.project, principal);
      const startedAt = body.startedAt ? new Date(body.startedAt) : new Date();
      const finishedAt = body.finishedAt ? new Date(body.finishedAt) : null;
      if (finishedAt && finishedAt < startedAt) {
        throw new AppError(400, 'invalid_run', '"finishedAt" is earlier than "startedAt"', {
          field: 'finishedAt',
        });
      }
      const row = await runs.insert({
        id: randomUUID(),
        slug: newSlug(),
        projectId,
        body,
        startedAt,
        finishedAt,
      });
      // Metrics that arrived before the run existed (an exporter started before it, or a
      // run created after the fact) are its own from now on.
      await claimHeld({
        id: row.id,
        slug: row.slug,
        projectId: row.projectId,
        environment: row.environment,
        startedMs: row.startedAt.getTime(),
        finishedMs: row.finishedAt ? row.finishedAt.getTime() : null,
        topology: row.topology,
      });
      return toRun(row);
    },

    async list(q: ListRunsQuery, principal: Principal): Promise<RunList> {
      const labelList = q.label === undefined ? [] : Array.isArray(q.label) ? q.label : [q.label];
      const labels = labelList.map((l): [string, string] => {
        const parsed = parseLabelFilter(l);
        if ('error' in parsed)
          throw new AppError(400, 'invalid_query', parsed.error, { field: 'label' });
        return [parsed.key, parsed.value];
      });
      const { rows, total } = await runs.list({
        ...q,
        labels,
        privateProjects: privateProjectsVisible(principal),
        match: 'contains',
      });
      return { runs: rows.map(toRun), total };
    },

    /** The list's filter values, from the runs the principal may read only. */
    async facets(principal: Principal) {
      const facets = await runs.facets(privateProjectsVisible(principal));
      return { ...facets, versions: [...facets.versions].sort(compareVersions) };
    },

    async get(idOrSlug: string): Promise<Run> {
      const row = await runs.find(idOrSlug);
      if (!row) throw notFound(`run "${idOrSlug}"`);
      return toRun(row);
    },

    /**
     * Deletes a run and every row of it (events, points, results, kept facts, gate results,
     * alerts), for a token of its project or the admin; audited in `run_deletions`. Reports
     * that froze the run keep their snapshot. Returns what was deleted, for the log.
     */
    async delete(idOrSlug: string, principal: Principal) {
      const row = await runs.find(idOrSlug);
      if (!row) throw notFound(`run "${idOrSlug}"`);
      refuse(writeRefusal(principal, row.projectId));
      const deletedBy = principal.kind === 'project' ? `token:${principal.tokenId}` : 'admin';
      const gone = await runs.delete(row.id, { id: randomUUID(), deletedBy });
      // Deleted by another request between the two reads: it is gone all the same.
      if (!gone) throw notFound(`run "${idOrSlug}"`);
      return {
        runId: row.id,
        slug: row.slug,
        projectId: row.projectId,
        deletedBy,
        rows: gone.rows,
      };
    },

    /**
     * Sets the run's status and finish time, with finishing begun at `firstStep` in the same
     * transaction (services/run-finish.service.ts runs the steps).
     */
    async finish(idOrSlug: string, body: FinishRunBody, firstStep: string): Promise<Run> {
      const row = await runs.find(idOrSlug);
      if (!row) throw notFound(`run "${idOrSlug}"`);
      const finishedAt = body.finishedAt ? new Date(body.finishedAt) : new Date();
      if (finishedAt < row.startedAt) {
        throw new AppError(
          400,
          'invalid_run',
          '"finishedAt" is earlier than the run\'s "startedAt"',
          {
            field: 'finishedAt',
          },
        );
      }
      const updated = await runs.finish(row.id, finishedAt, body.status ?? 'finished', firstStep);
      return toRun(updated as RunRow);
    },
  };
}
export type RunsService = ReturnType<typeof runsService>;
