// Data-plane gate rules (load.p99>+10%): a run's load steps held against its baseline run's,
// step by step, for a threshold when a run finishes and for the CLI's --fail-on.
import { type LoadRule, loadPercentileOf, parseLoadRule, RuleError } from '@meshbench/gates';
import type { GateVerdict, LoadGateQuery, StoredLoadResult } from '@meshbench/schema';
import type { Principal } from '../domain/access.ts';
import { comparabilityOf } from '../domain/comparability.ts';
import { noiseFloor } from '../domain/gate-significance.ts';
import { evaluateLoadRule, type LoadStepSide, loadValue } from '../domain/load-gate.ts';
import { type StepKey, stepKey } from '../domain/load-steps.ts';
import { AppError, notFound } from '../errors.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import {
  branchBaselineRuns,
  finishedRunsOfScenario,
  readableBaselineRun,
} from './branch-baseline.ts';
import { factsOf } from './comparability.service.ts';
import type { ProjectsService } from './projects.service.ts';
import type { ResultsService } from './results.service.ts';

type Step = { side: LoadStepSide; stored: StoredLoadResult };

export function loadGateService(deps: {
  runs: RunsRepository;
  results: Pick<ResultsService, 'gateSteps'>;
  projects: Pick<ProjectsService, 'visibility'>;
}) {
  const { runs, results, projects } = deps;

  /** The baseline run: a run id, or the newest finished run of branch:NAME other than `run`. */
  async function baselineRun(
    run: RunRow,
    spec: string,
  ): Promise<{ label: string; run: RunRow | null }> {
    if (spec.startsWith('branch:')) {
      const branch = spec.slice('branch:'.length);
      const [base = null] = await branchBaselineRuns(runs, run, branch, 1);
      return {
        label: base ? `run ${base.id} (the newest finished on ${branch})` : `none on ${branch}`,
        run: base,
      };
    }
    const base = await runs.find(spec);
    return base
      ? { label: `run ${base.id}`, run: base }
      : { label: `run ${spec} (not found)`, run: null };
  }

  const factsOfStep = (run: RunRow, step: Step, where: string) =>
    factsOf(
      { ...run, mesh: { name: run.meshName, version: run.meshVersion } },
      [step.stored],
      where,
    );

  /**
   * The noise floor of the rule's percentile at each step: the largest spread among finished
   * runs of the project, benchmark and scenario labelled with one `repeat` (A/A runs), newest 100.
   */
  async function noiseFloors(run: RunRow, rule: LoadRule): Promise<Map<string, number | null>> {
    const out = new Map<string, number | null>();
    if (loadPercentileOf(rule.metric) === null || !rule.relative) return out;
    const rows = await finishedRunsOfScenario(runs, run);
    // step -> repeat -> values
    const groups = new Map<string, Map<string, number[]>>();
    for (const r of rows.filter((r) => r.labels.repeat).slice(0, 100)) {
      for (const { side } of await results.gateSteps(r.id, false)) {
        const v = loadValue(rule, side);
        if (v === null) continue;
        const byRepeat = groups.get(stepKey(side)) ?? new Map<string, number[]>();
        const repeat = r.labels.repeat as string;
        byRepeat.set(repeat, [...(byRepeat.get(repeat) ?? []), v]);
        groups.set(stepKey(side), byRepeat);
      }
    }
    for (const [key, byRepeat] of groups) out.set(key, noiseFloor([...byRepeat.values()]));
    return out;
  }

  /** A data-plane rule on a run against a baseline (a run id or branch:NAME), as a verdict. */
  async function verdict(
    run: RunRow,
    rule: LoadRule,
    baselineSpec: string | null,
  ): Promise<GateVerdict> {
    const current = await results.gateSteps(run.id);
    let label = 'none';
    let base: RunRow | null = null;
    if (rule.relative && baselineSpec) {
      ({ label, run: base } = await baselineRun(run, baselineSpec));
    }
    const baseline = base ? await results.gateSteps(base.id) : null;
    const stored = new Map<LoadStepSide, Step>(
      [...current, ...(baseline ?? [])].map((s) => [s.side, s]),
    );
    const floors = await noiseFloors(run, rule);
    const v = evaluateLoadRule({
      rule,
      current: current.map((s) => s.side),
      baseline: baseline ? baseline.map((s) => s.side) : null,
      notComparable: (c, b) => {
        const here = factsOfStep(run, stored.get(c) as Step, 'here');
        const facts =
          b && base ? [factsOfStep(base, stored.get(b) as Step, 'in the baseline'), here] : [here];
        // A rule on the achieved rate measures the shortfall: it cannot make it incomparable.
        const warnings = comparabilityOf(facts, rule.same).filter(
          (w) => rule.metric !== 'load.rps' || w.kind !== 'rps-shortfall',
        );
        return warnings.length > 0 ? warnings.map((w) => w.reason).join('; ') : undefined;
      },
      noiseFloorMs: (s: StepKey) => floors.get(stepKey(s)) ?? null,
    });
    return {
      rule: rule.text,
      baseline: label,
      baselineValue: v.baselineValue,
      current: v.current,
      bound: v.bound,
      failed: v.failed,
      reason: v.reason,
      verdict: v.verdict,
      steps: v.steps,
    };
  }

  return {
    verdict,

    /** GET /runs/{id}/load-gate: a data-plane rule on a run, as a threshold would hold it. */
    async evaluate(runRef: string, q: LoadGateQuery, principal: Principal): Promise<GateVerdict> {
      const run = await runs.find(runRef);
      if (!run) throw notFound(`run "${runRef}"`);
      await readableBaselineRun({ runs, projects }, run.projectId, q.baseline, principal);
      let rule: LoadRule;
      try {
        rule = parseLoadRule(q.rule);
      } catch (error) {
        if (error instanceof RuleError)
          throw new AppError(400, 'invalid_query', error.message, { field: 'rule' });
        throw error;
      }
      if (rule.relative && !q.baseline)
        throw new AppError(
          400,
          'invalid_query',
          `"${q.rule}" is relative: give a baseline (a run id or branch:NAME)`,
          { field: 'baseline' },
        );
      return verdict(run, rule, q.baseline ?? null);
    },
  };
}
export type LoadGateService = ReturnType<typeof loadGateService>;
