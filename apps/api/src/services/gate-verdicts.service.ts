// Gate verdicts: a finished run's thresholds evaluated against a named run or the median of
// a branch's last finished runs, a percentile's significance against pooled baseline runs
// and A/A repeats, and the verdicts kept per run. The rules and metrics are the CLI's own
// (packages/gates).
import {
  evaluate,
  isLoadRule,
  type Metrics,
  medianMetrics,
  metricsOf,
  parseLoadRule,
  parseRule,
} from '@meshbench/gates';
import type {
  ComparabilityPin,
  GateResult,
  Metric,
  Propagation,
  Significance,
  SignificanceAnswer,
  SignificanceQuery,
} from '@meshbench/schema';
import type { Principal } from '../domain/access.ts';
import { gateSignificance, noiseFloor, percentileOf } from '../domain/gate-significance.ts';
import { notFound } from '../errors.ts';
import type { GateResultRow, GatesRepository } from '../repositories/gates.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import {
  branchBaselineRuns,
  finishedRunsOfScenario,
  readableBaselineRun,
} from './branch-baseline.ts';
import type { ComparabilityService } from './comparability.service.ts';
import type { LoadGateService } from './load-gate.service.ts';
import type { ProjectsService } from './projects.service.ts';
import type { PropagationService } from './propagation.service.ts';
import { runOf } from './run-lookup.ts';

const toResult = (r: GateResultRow): GateResult => ({
  runId: r.runId,
  passed: r.passed,
  evaluatedAt: r.evaluatedAt.toISOString(),
  verdicts: r.verdicts as GateResult['verdicts'],
});

export function gateVerdictsService(deps: {
  gates: Pick<GatesRepository, 'applicable' | 'saveResult' | 'result' | 'firstChangeLatenciesMs'>;
  runs: RunsRepository;
  projects: ProjectsService;
  propagation: Pick<PropagationService, 'changes' | 'propagation'>;
  comparability: Pick<ComparabilityService, 'againstBaseline'>;
  /** Data-plane rules (load.p99>+10%), held step by step. */
  loadGate: Pick<LoadGateService, 'verdict'>;
}) {
  const { gates, runs, projects, propagation, comparability, loadGate } = deps;

  /**
   * Runs' first-change summaries, each read once for one use case: a run's rules, their
   * baselines, repeats and clock errors share the runs they read.
   */
  function summaryReader() {
    const read = new Map<string, Promise<Propagation | null>>();
    const summary = (runId: string) => {
      let p = read.get(runId);
      if (!p) {
        p = (async () => {
          const [first] = await propagation.changes(runId);
          if (!first) return null;
          return propagation.propagation(runId, first.id, {
            withinMs: 1000,
            bins: 1,
            scale: 'linear',
          });
        })();
        read.set(runId, p);
      }
      return p;
    };
    return {
      /** A run's gate metrics: those of its first change, or null without changes. */
      async metrics(runId: string): Promise<Metrics | null> {
        const p = await summary(runId);
        return p ? metricsOf(p) : null;
      },
      /** The largest clock error of its corrected latencies; null without clock data. */
      clockError: async (runId: string): Promise<number | null> =>
        (await summary(runId))?.clock?.maxClockErrorMs ?? null,
    };
  }
  type SummaryReader = ReturnType<typeof summaryReader>;

  async function baselineOf(
    run: RunRow,
    spec: string | null,
    last: number,
    read: SummaryReader = summaryReader(),
  ): Promise<{ label: string; metrics: Metrics | null; runIds: string[] }> {
    if (!spec) return { label: 'none', metrics: null, runIds: [] };
    if (spec.startsWith('branch:')) {
      const branch = spec.slice('branch:'.length);
      // A project's thresholds compare with the project's own runs of the run's series.
      const rows = await branchBaselineRuns(runs, run, branch, last);
      const all: Metrics[] = [];
      const runIds: string[] = [];
      for (const r of rows) {
        const m = await read.metrics(r.id);
        if (m) {
          all.push(m);
          runIds.push(r.id);
        }
      }
      return {
        label: `median of the last ${all.length} finished run(s) on ${branch}`,
        metrics: all.length ? medianMetrics(all) : null,
        runIds,
      };
    }
    const base = await runs.find(spec);
    if (!base) return { label: `run ${spec} (not found)`, metrics: null, runIds: [] };
    return { label: `run ${base.id}`, metrics: await read.metrics(base.id), runIds: [base.id] };
  }

  /** The baseline runs' latencies pooled (ms, ascending); null when one has none. */
  async function pooledLatencies(runIds: string[]): Promise<Float64Array | null> {
    const parts: Float64Array[] = [];
    for (const id of runIds) {
      const l = await gates.firstChangeLatenciesMs(id);
      if (!l || l.length === 0) return null;
      parts.push(l);
    }
    if (parts.length === 0) return null;
    if (parts.length === 1) return parts[0] as Float64Array;
    const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out.sort();
  }

  /**
   * Repeats of one configuration (A/A runs): finished runs of the run's project, benchmark
   * and scenario labelled `repeat` (its value names the configuration), newest 100.
   */
  async function repeatGroups(run: RunRow, read: SummaryReader): Promise<Map<string, Metrics[]>> {
    const rows = await finishedRunsOfScenario(runs, run);
    const groups = new Map<string, Metrics[]>();
    for (const r of rows.filter((r) => r.labels.repeat).slice(0, 100)) {
      const m = await read.metrics(r.id);
      if (!m) continue;
      const key = r.labels.repeat as string;
      groups.set(key, [...(groups.get(key) ?? []), m]);
    }
    return groups;
  }

  /** Whether the run's percentile `metric` moved beyond noise against the baseline runs. */
  async function significanceOf(
    run: RunRow,
    baselineRunIds: string[],
    metric: Metric,
    minEffectMs: number,
    read: SummaryReader,
    same: readonly ComparabilityPin[],
  ): Promise<Significance> {
    const repeats = await repeatGroups(run, read);
    return gateSignificance({
      percentile: percentileOf(metric) as number,
      current: await gates.firstChangeLatenciesMs(run.id),
      baseline: await pooledLatencies(baselineRunIds),
      minEffectMs,
      noiseFloorMs: noiseFloor(
        [...repeats.values()].map((g) =>
          g.map((m) => m[metric]).filter((x): x is number => x !== null),
        ),
      ),
      notComparable: await incomparable(run, baselineRunIds, same),
      clockErrorMs: await largestClockError([run.id, ...baselineRunIds], read),
    });
  }

  async function largestClockError(runIds: string[], read: SummaryReader): Promise<number | null> {
    let largest: number | null = null;
    for (const id of runIds) {
      const e = await read.clockError(id);
      if (e !== null) largest = Math.max(largest ?? 0, e);
    }
    return largest;
  }

  /** Why the baseline runs cannot be held against this run, if they cannot. */
  async function incomparable(
    run: RunRow,
    runIds: string[],
    same: readonly ComparabilityPin[],
  ): Promise<string | undefined> {
    const warnings = await comparability.againstBaseline(run, runIds, same);
    return warnings.length > 0 ? warnings.map((w) => w.reason).join('; ') : undefined;
  }

  return {
    /** Evaluates the thresholds that apply to a finished run; null when none apply. */
    async evaluate(runId: string): Promise<GateResult | null> {
      const run = await runOf(runs, runId);
      const applicable = await gates.applicable(run.projectId, run.benchmark, run.scenario);
      if (applicable.length === 0) return null;
      const read = summaryReader();
      const current = await read.metrics(run.id);
      const verdicts = [];
      for (const t of applicable) {
        if (isLoadRule(t.rule)) {
          verdicts.push(await loadGate.verdict(run, parseLoadRule(t.rule), t.baseline));
          continue;
        }
        const rule = parseRule(t.rule);
        const baseline = await baselineOf(run, t.baseline, t.last, read);
        const v = evaluate(
          rule,
          current ? current[rule.metric] : null,
          baseline.metrics ? baseline.metrics[rule.metric] : null,
        );
        const verdict: GateResult['verdicts'][number] = {
          rule: t.rule,
          baseline: baseline.label,
          baselineValue: v.baseline,
          current: v.current,
          bound: v.bound,
          failed: v.failed,
          reason: v.reason,
        };
        const percentile = percentileOf(rule.metric);
        if (
          percentile !== null &&
          rule.relative &&
          (rule.op === '>' || rule.op === '>=') &&
          v.baseline !== null &&
          v.current !== null
        ) {
          const significance = await significanceOf(
            run,
            baseline.runIds,
            rule.metric,
            Math.abs(rule.value * v.baseline),
            read,
            rule.same,
          );
          verdict.significance = significance;
          // The fixed rule says how large a change matters; the runs must also show one.
          if (v.failed && significance.verdict !== 'regressed') {
            verdict.failed = false;
            verdict.reason = `${v.reason}, but not significant: ${significance.reason}`;
          }
        }
        verdicts.push(verdict);
      }
      return toResult(
        await gates.saveResult({
          runId: run.id,
          passed: verdicts.every((v) => !v.failed),
          verdicts,
        }),
      );
    },

    /** The significance of a run's percentile against a baseline, as a gate would test it. */
    async significance(
      runRef: string,
      q: SignificanceQuery,
      principal: Principal,
    ): Promise<SignificanceAnswer> {
      const run = await runOf(runs, runRef);
      await readableBaselineRun({ runs, projects }, run.projectId, q.baseline, principal);
      const read = summaryReader();
      const baseline = await baselineOf(run, q.baseline, q.last, read);
      if (baseline.runIds.length === 0)
        throw notFound(`a baseline with observations: ${baseline.label}`);
      const s = await significanceOf(
        run,
        baseline.runIds,
        q.metric,
        q.minEffectMs,
        read,
        q.same ? [q.same] : [],
      );
      return { ...s, metric: q.metric, baseline: baseline.label.replace('median of', 'pooled') };
    },

    /** Whether a gate verdict is kept for the run. */
    hasResult: async (runId: string): Promise<boolean> => (await gates.result(runId)) !== undefined,

    async result(runRef: string): Promise<GateResult> {
      const run = await runOf(runs, runRef);
      const row = await gates.result(run.id);
      if (!row)
        throw notFound(
          `a gate result for run "${runRef}" (no thresholds applied when it finished)`,
        );
      return toResult(row);
    },
  };
}
export type GateVerdictsService = ReturnType<typeof gateVerdictsService>;
