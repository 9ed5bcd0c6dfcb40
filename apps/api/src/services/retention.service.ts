// Raw data retention (docs/scale.md): a project's setting, read and set through the API, and
// the sweep the background worker runs once across replicas (its lease, services.plugin.ts).
import type { ProjectRetention, PutRetentionBody, Visibility } from '@meshbench/schema';
import { type Principal, readRefusal, writeRefusal } from '../domain/access.ts';
import { notFound } from '../errors.ts';
import type { RetentionRepository } from '../repositories/retention.repository.ts';
import { refuse } from './projects.service.ts';

/** Runs one sweep drops at most: the next tick takes the rest. */
export const SWEEP_BATCH = 50;

export function retentionService(deps: {
  retention: RetentionRepository;
  projects: {
    find(
      ref: string,
    ): Promise<{ id: string; visibility: string; rawRetentionDays: number | null } | undefined>;
  };
}) {
  const { retention, projects } = deps;

  async function projectOf(ref: string) {
    const project = await projects.find(ref);
    if (!project) throw notFound(`project "${ref}"`);
    return project;
  }

  return {
    /** GET /projects/{id}/retention: whoever may read the project's runs. */
    async read(projectRef: string, principal: Principal): Promise<ProjectRetention> {
      const project = await projectOf(projectRef);
      if (readRefusal(principal, project.id, project.visibility as Visibility))
        throw notFound(`project "${projectRef}"`);
      return {
        projectId: project.id,
        rawRetentionDays: project.rawRetentionDays,
        rawDroppedRuns: await retention.droppedRuns(project.id),
      };
    },

    /** PUT /projects/{id}/retention: the admin or a token of the project. */
    async set(
      projectRef: string,
      body: PutRetentionBody,
      principal: Principal,
    ): Promise<ProjectRetention> {
      const project = await projectOf(projectRef);
      refuse(writeRefusal(principal, project.id));
      await retention.setDays(project.id, body.rawRetentionDays);
      return {
        projectId: project.id,
        rawRetentionDays: body.rawRetentionDays,
        rawDroppedRuns: await retention.droppedRuns(project.id),
      };
    },

    /**
     * Drops the raw rows of up to `limit` due runs, one run per transaction; returns what went
     * of each. Safe to run on two replicas at once (each run is re-checked under its row lock),
     * though the worker runs it on the lease holder only.
     */
    async sweep(
      options: { limit?: number; projectId?: string } = {},
    ): Promise<{ runId: string; rows: Record<string, number> }[]> {
      const due = await retention.due(options.limit ?? SWEEP_BATCH, options.projectId);
      const dropped: { runId: string; rows: Record<string, number> }[] = [];
      for (const runId of due) {
        const rows = await retention.dropRaw(runId);
        if (rows) dropped.push({ runId, rows });
      }
      return dropped;
    },
  };
}
export type RetentionService = ReturnType<typeof retentionService>;
