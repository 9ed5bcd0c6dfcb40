// The runs use case: create, list, read and finish.
import { randomBytes, randomUUID } from 'node:crypto';
import type { CreateRunBody, FinishRunBody, ListRunsQuery, Run, RunList } from '@meshbench/schema';
import { AppError, notFound } from '../errors.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';

/** 128 random bits, base64url: the unguessable share id of a run. */
export const newSlug = () => randomBytes(16).toString('base64url');

export function toRun(row: RunRow): Run {
  return {
    id: row.id,
    slug: row.slug,
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

export function runsService(deps: { runs: RunsRepository }) {
  const { runs } = deps;
  return {
    async create(body: CreateRunBody): Promise<Run> {
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
        body,
        startedAt,
        finishedAt,
      });
      return toRun(row);
    },

    async list(q: ListRunsQuery): Promise<RunList> {
      const labelList = q.label === undefined ? [] : Array.isArray(q.label) ? q.label : [q.label];
      const labels = labelList.map((l): [string, string] => {
        const i = l.indexOf(':');
        if (i <= 0)
          throw new AppError(400, 'invalid_query', `label "${l}" must be key:value`, {
            field: 'label',
          });
        return [l.slice(0, i), l.slice(i + 1)];
      });
      const { rows, total } = await runs.list({ ...q, labels });
      return { runs: rows.map(toRun), total };
    },

    facets: () => runs.facets(),

    async get(idOrSlug: string): Promise<Run> {
      const row = await runs.find(idOrSlug);
      if (!row) throw notFound(`run "${idOrSlug}"`);
      return toRun(row);
    },

    async finish(idOrSlug: string, body: FinishRunBody): Promise<Run> {
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
      const updated = await runs.finish(row.id, finishedAt, body.status ?? 'finished');
      return toRun(updated as RunRow);
    },
  };
}
export type RunsService = ReturnType<typeof runsService>;
