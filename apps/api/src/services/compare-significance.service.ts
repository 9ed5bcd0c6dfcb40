// Which differences of a comparison are beyond noise: each compared run's percentiles of a
// change against the baseline run's, with the exact bootstrap interval the gates compute
// (quantile-bootstrap.ts) and a verdict on the interval alone (no rule minimum, no noise
// floor, unlike a gate's): the compare page colours a difference only when it excludes zero.
import type { CompareSignificance, PercentileDifferenceAnswer } from '@meshbench/schema';
import { type Principal, readRefusal } from '../domain/access.ts';
import { ms } from '../domain/gate-significance.ts';
import { percentileDifference } from '../domain/quantile-bootstrap.ts';
import { AppError, notFound } from '../errors.ts';
import type { GatesRepository } from '../repositories/gates.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import { type ProjectsService, refuse } from './projects.service.ts';
import type { PropagationService } from './propagation.service.ts';

export const COMPARE_LEVEL = 0.95;

/** One percentile's difference (current - baseline) judged on its interval alone. */
export function differenceOf(
  p: number,
  current: Float64Array,
  baseline: Float64Array,
  level = COMPARE_LEVEL,
): PercentileDifferenceAnswer {
  if (current.length === 0 || baseline.length === 0)
    return {
      p,
      verdict: 'not-comparable',
      reason: `no raw latencies ${current.length === 0 ? 'in this run' : 'in the baseline'}`,
      deltaMs: null,
      lowMs: null,
      highMs: null,
    };
  const d = percentileDifference(current, baseline, p, level);
  if (!d) throw new Error('unreachable: both samples are non-empty');
  const interval = `${Math.round(level * 100)} % interval ${ms(d.low)} to ${ms(d.high)}`;
  const holds = d.low <= 0 && d.high >= 0;
  return {
    p,
    // Beyond noise on the side the interval lies, all of it above or below 0.
    verdict: holds ? 'no-significant-change' : d.low > 0 ? 'regressed' : 'improved',
    reason: holds
      ? `${interval} holds 0`
      : `${d.delta > 0 ? '+' : ''}${ms(d.delta)}, ${interval}, which excludes 0`,
    deltaMs: d.delta,
    lowMs: d.low,
    highMs: d.high,
  };
}

export function compareSignificanceService(deps: {
  runs: Pick<RunsRepository, 'find'>;
  projects: Pick<ProjectsService, 'visibility'>;
  propagation: Pick<PropagationService, 'changes'>;
  gates: Pick<GatesRepository, 'changeLatenciesMs'>;
}) {
  const { runs, projects, propagation, gates } = deps;
  return {
    /**
     * A report's frozen intervals: per compared run (not the baseline), per change of it that
     * the compare page pairs with a baseline change (the same id, or first with first), the
     * differences of `percentiles`. Indexed as the runs, then their changes in order.
     */
    async ofReport(
      runChanges: { runId: string; changeIds: string[] }[],
      percentiles: number[],
    ): Promise<
      Map<string, { baselineChange: string; differences: PercentileDifferenceAnswer[] }[]>[]
    > {
      const [base, ...rest] = runChanges;
      const out = runChanges.map(() => new Map());
      if (!base || base.changeIds.length === 0) return out;
      const baseLatencies = new Map<string, Float64Array>();
      const latenciesOfBase = async (changeId: string) => {
        let l = baseLatencies.get(changeId);
        if (!l) {
          l = await gates.changeLatenciesMs(base.runId, changeId);
          baseLatencies.set(changeId, l);
        }
        return l;
      };
      for (const [j, r] of rest.entries()) {
        for (const [k, changeId] of r.changeIds.entries()) {
          const against = [
            ...new Set([
              ...(base.changeIds.includes(changeId) ? [changeId] : []),
              ...(k === 0 ? [base.changeIds[0] as string] : []),
            ]),
          ];
          if (against.length === 0) continue;
          const mine = await gates.changeLatenciesMs(r.runId, changeId);
          const entries = [];
          for (const b of against) {
            const theirs = await latenciesOfBase(b);
            entries.push({
              baselineChange: b,
              differences: percentiles.map((p) => differenceOf(p, mine, theirs)),
            });
          }
          out[j + 1]?.set(changeId, entries);
        }
      }
      return out;
    },
    /** GET /compare/significance: the runs as the compare page pairs their changes. */
    async ofRuns(
      refs: string[],
      changeIds: string[],
      percentiles: number[],
      principal: Principal,
    ): Promise<CompareSignificance> {
      if (changeIds.length !== refs.length)
        throw new AppError(
          400,
          'bad_request',
          `changes: give one change id per run (${refs.length}), empty for a run without it; got ${changeIds.length}`,
          { field: 'changes' },
        );
      const chosen: { run: RunRow; changeId: string | null; latencies: Float64Array }[] = [];
      for (const [i, ref] of refs.entries()) {
        const run = await runs.find(ref);
        if (!run) throw notFound(`run "${ref}"`);
        refuse(readRefusal(principal, run.projectId, await projects.visibility(run.projectId)));
        const changeId = changeIds[i] || null;
        if (
          changeId !== null &&
          !(await propagation.changes(run.id)).some((c) => c.id === changeId)
        )
          throw notFound(`change "${changeId}" in run "${ref}"`);
        const latencies = changeId
          ? await gates.changeLatenciesMs(run.id, changeId)
          : new Float64Array(0);
        chosen.push({ run, changeId, latencies });
      }
      const [base] = chosen as [(typeof chosen)[number]];
      return {
        level: COMPARE_LEVEL,
        runs: chosen.map((c, i) => ({
          runId: c.run.id,
          changeId: c.changeId,
          observations: c.latencies.length,
          differences:
            i === 0 ? [] : percentiles.map((p) => differenceOf(p, c.latencies, base.latencies)),
        })),
      };
    },
  };
}
export type CompareSignificanceService = ReturnType<typeof compareSignificanceService>;
