// Thresholds: the rules a project holds a benchmark's runs to (packages/gates' rules), each
// checked when it is set: a relative rule needs a baseline, and a baseline run must be one
// the token may read.
import { randomUUID } from 'node:crypto';
import { isLoadRule, parseLoadRule, parseRule, RuleError } from '@meshbench/gates';
import type { CreateThresholdBody, Threshold } from '@meshbench/schema';
import { type Principal, writeRefusal } from '../domain/access.ts';
import { AppError, notFound } from '../errors.ts';
import type { GatesRepository, ThresholdRow } from '../repositories/gates.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import { readableBaselineRun } from './branch-baseline.ts';
import { type ProjectsService, refuse } from './projects.service.ts';

const toThreshold = (t: ThresholdRow): Threshold => ({
  id: t.id,
  projectId: t.projectId,
  benchmark: t.benchmark,
  scenario: t.scenario,
  rule: t.rule,
  baseline: t.baseline,
  last: t.last,
  createdAt: t.createdAt.toISOString(),
});
export function thresholdsService(deps: {
  gates: Pick<
    GatesRepository,
    'insertThreshold' | 'thresholdsOf' | 'threshold' | 'deleteThreshold'
  >;
  runs: RunsRepository;
  projects: ProjectsService;
}) {
  const { gates, runs, projects } = deps;

  async function projectFor(ref: string, principal: Principal): Promise<string> {
    const list = await projects.list({ kind: 'admin' });
    const project = list.find((p) => p.id === ref || p.name === ref);
    if (!project) throw notFound(`project "${ref}"`);
    refuse(writeRefusal(principal, project.id));
    return project.id;
  }

  return {
    async createThreshold(
      projectRef: string,
      body: CreateThresholdBody,
      principal: Principal,
    ): Promise<Threshold> {
      const projectId = await projectFor(projectRef, principal);
      try {
        const rule = isLoadRule(body.rule) ? parseLoadRule(body.rule) : parseRule(body.rule);
        if (rule.relative && !body.baseline) {
          throw new AppError(
            400,
            'invalid_threshold',
            `"${body.rule}" is relative: give a baseline (a run id or branch:NAME)`,
            { field: 'baseline' },
          );
        }
      } catch (error) {
        if (error instanceof RuleError)
          throw new AppError(400, 'invalid_threshold', error.message, { field: 'rule' });
        throw error;
      }
      // A baseline run is one the token may read: its numbers show in every verdict.
      const base = await readableBaselineRun(
        { runs, projects },
        projectId,
        body.baseline,
        principal,
      );
      if (body.baseline && !body.baseline.startsWith('branch:') && !base) {
        throw new AppError(
          400,
          'invalid_threshold',
          `baseline: no run "${body.baseline}" (give a run id or branch:NAME)`,
          { field: 'baseline' },
        );
      }
      return toThreshold(
        await gates.insertThreshold({
          id: randomUUID(),
          projectId,
          benchmark: body.benchmark,
          scenario: body.scenario ?? null,
          rule: body.rule,
          baseline: body.baseline ?? null,
          last: body.last,
        }),
      );
    },

    async thresholds(projectRef: string, principal: Principal): Promise<Threshold[]> {
      return (await gates.thresholdsOf(await projectFor(projectRef, principal))).map(toThreshold);
    },

    async deleteThreshold(id: string, principal: Principal): Promise<void> {
      const t = await gates.threshold(id);
      if (!t) throw notFound(`threshold "${id}"`);
      refuse(writeRefusal(principal, t.projectId));
      await gates.deleteThreshold(id);
    },
  };
}
export type ThresholdsService = ReturnType<typeof thresholdsService>;
