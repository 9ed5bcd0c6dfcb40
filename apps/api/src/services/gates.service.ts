// Regression gates: thresholds per project and benchmark, evaluated when a run finishes,
// against a named run or the median of a branch's last finished runs; and history, one
// number across runs. The rules and metrics are the CLI's own (packages/gates).
import { randomUUID } from 'node:crypto';
import {
  evaluate,
  isLoadRule,
  type Metrics,
  medianMetrics,
  metricsOf,
  parseLoadRule,
  parseRule,
  RuleError,
} from '@meshbench/gates';
import type {
  Alert,
  AlertState,
  ComparabilityPin,
  CreateThresholdBody,
  GateResult,
  Metric,
  Propagation,
  Significance,
  SignificanceAnswer,
  SignificanceQuery,
  Threshold,
  UpdateAlertBody,
} from '@meshbench/schema';
import { type Principal, privateProjectsVisible, writeRefusal } from '../domain/access.ts';
import { gateSignificance, noiseFloor } from '../domain/gate-significance.ts';
import { AppError, notFound } from '../errors.ts';
import type {
  AlertRow,
  GateResultRow,
  GatesRepository,
  ThresholdRow,
} from '../repositories/gates.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import {
  branchBaselineRuns,
  finishedRunsOfScenario,
  readableBaselineRun,
} from './branch-baseline.ts';
import type { ComparabilityService } from './comparability.service.ts';
import type { LoadGateService } from './load-gate.service.ts';
import { type ProjectsService, refuse } from './projects.service.ts';
import type { PropagationService } from './propagation.service.ts';

/** The percentile a metric names (p99.9 -> 99.9), or null for mean, max and shares. */
function percentileOf(metric: string): number | null {
  const m = /^p(\d+(?:\.\d+)?)$/.exec(metric);
  return m ? Number(m[1]) : null;
}

const toAlert = (a: AlertRow): Alert => ({
  id: a.id,
  projectId: a.projectId,
  kind: a.kind as Alert['kind'],
  series: a.series as Alert['series'],
  runId: a.runId,
  previousRunId: a.previousRunId,
  details: a.details,
  state: a.state as AlertState,
  detected: a.detected,
  log: a.log as Alert['log'],
  createdAt: a.createdAt.toISOString(),
  updatedAt: a.updatedAt.toISOString(),
});

const seriesKeyOf = (s: Alert['series']) =>
  JSON.stringify([s.benchmark, s.scenario, s.mesh, s.branch, s.metric]);

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
const toResult = (r: GateResultRow): GateResult => ({
  runId: r.runId,
  passed: r.passed,
  evaluatedAt: r.evaluatedAt.toISOString(),
  verdicts: r.verdicts as GateResult['verdicts'],
});

export function gatesService(deps: {
  gates: GatesRepository;
  runs: RunsRepository;
  projects: ProjectsService;
  propagation: PropagationService;
  comparability: ComparabilityService;
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

  /** A failed gate is an alert of its own: the run, its failed rules. */
  async function gateAlert(run: RunRow, result: GateResult): Promise<void> {
    if (result.passed) return;
    const series = {
      benchmark: run.benchmark,
      scenario: run.scenario,
      mesh: run.meshName,
      branch: run.labels.branch ?? null,
      metric: 'gate',
    };
    const seriesKey = seriesKeyOf(series);
    const kept = await gates.alertsOfSeries(run.projectId, seriesKey, 'gate');
    const details = {
      failed: result.verdicts
        .filter((v) => v.failed)
        .map((v) => ({ rule: v.rule, reason: v.reason })),
    };
    const same = kept.find((a) => a.runId === run.id);
    if (same) {
      await gates.updateAlert(same.id, { details });
      return;
    }
    await gates.insertAlert({
      id: randomUUID(),
      projectId: run.projectId,
      kind: 'gate',
      seriesKey,
      series,
      runId: run.id,
      previousRunId: null,
      details,
      state: 'open',
      detected: true,
      log: [{ at: new Date().toISOString(), by: 'meshbench', action: 'detected', toRunId: run.id }],
    });
  }

  async function whoIs(principal: Principal): Promise<string> {
    if (principal.kind === 'admin') return 'admin';
    if (principal.kind === 'project') {
      const token = await projects.tokenName(principal.tokenId);
      return token ?? `token ${principal.tokenId}`;
    }
    return 'anonymous';
  }

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

    /** Evaluates the thresholds that apply to a finished run; null when none apply. */
    async evaluate(runId: string): Promise<GateResult | null> {
      const run = await runs.find(runId);
      if (!run) throw notFound(`run "${runId}"`);
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

    /**
     * After a run finished: a failed gate, kept as an alert (its change points are the
     * history's: history.service afterFinish).
     */
    async alertsAfterFinish(runId: string, gate: GateResult | null): Promise<void> {
      const run = await runs.find(runId);
      if (!run) throw notFound(`run "${runId}"`);
      if (gate) await gateAlert(run, gate);
    },

    async alerts(
      projectRef: string,
      state: AlertState | undefined,
      principal: Principal,
    ): Promise<Alert[]> {
      const list = await projects.list({ kind: 'admin' });
      const project = list.find((p) => p.id === projectRef || p.name === projectRef);
      if (!project) throw notFound(`project "${projectRef}"`);
      const visible = privateProjectsVisible(principal);
      if (project.visibility === 'private' && visible !== 'all' && visible !== project.id)
        throw notFound(`project "${projectRef}"`);
      return (await gates.alertsOf(project.id, state)).map(toAlert);
    },

    async updateAlert(id: string, body: UpdateAlertBody, principal: Principal): Promise<Alert> {
      const a = await gates.alert(id);
      if (!a) throw notFound(`alert "${id}"`);
      refuse(writeRefusal(principal, a.projectId));
      const log = [
        ...(a.log as Record<string, unknown>[]),
        {
          at: new Date().toISOString(),
          by: await whoIs(principal),
          action: body.state,
          ...(body.reason ? { reason: body.reason } : {}),
        },
      ];
      return toAlert(await gates.updateAlert(id, { state: body.state, log }));
    },

    /** The significance of a run's percentile against a baseline, as a gate would test it. */
    async significance(
      runRef: string,
      q: SignificanceQuery,
      principal: Principal,
    ): Promise<SignificanceAnswer> {
      const run = await runs.find(runRef);
      if (!run) throw notFound(`run "${runRef}"`);
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
      const run = await runs.find(runRef);
      if (!run) throw notFound(`run "${runRef}"`);
      const row = await gates.result(run.id);
      if (!row)
        throw notFound(
          `a gate result for run "${runRef}" (no thresholds applied when it finished)`,
        );
      return toResult(row);
    },
  };
}
export type GatesService = ReturnType<typeof gatesService>;
