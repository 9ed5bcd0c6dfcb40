// History: one metric across the runs of a benchmark (propagation, scale-up or data plane),
// with the change points of each series; and, when a run finishes, the change points of its
// series in every alerting metric, kept as alerts. What a finished run offers is computed
// once and kept in the database (run_facts, run_metrics: at its finish, or on the first read
// of a run that finished before they existed, or after a late write made them stale), so a
// history of 1,000 runs reads rows in one query and every replica reads the same.
import { randomUUID } from 'node:crypto';
import {
  type AlertState,
  DEFAULT_DETECTION,
  type DetectionSettings,
  HISTORY_METRICS,
  type History,
  type HistoryMetric,
  type HistoryPoint,
  type HistoryQuery,
  type PercentileAccuracy,
  type SeriesKind,
} from '@meshbench/schema';
import { type Principal, privateProjectsVisible } from '../domain/access.ts';
import { changePoints } from '../domain/change-points.ts';
import { historyChangePoints } from '../domain/history-change-points.ts';
import {
  chooseLoadPoint,
  cpuFacts,
  isJoinPhase,
  isLoadMetric,
  joinFacts,
  LOAD_METRICS,
  type LoadFacts,
  type LoadPoint,
  loadFacts,
  loadValue,
  PROPAGATION_HISTORY_PERCENTILES,
  pooledFacts,
  propagationFacts,
  type RunFacts,
  type Valued,
} from '../domain/history-metrics.ts';
import { steadyStart } from '../domain/lifecycle.ts';
import { normalize } from '../domain/series-math.ts';
import { cpuCoresRows, isCpuSecondsCounter } from '../domain/steady-levels.ts';
import { notFound } from '../errors.ts';
import type { AlertRow, GatesRepository } from '../repositories/gates.repository.ts';
import type { LifecycleRepository } from '../repositories/lifecycle.repository.ts';
import type { MetricsRepository } from '../repositories/metrics.repository.ts';
import type {
  KeptFacts,
  KeptFactsEntry,
  RunFactsRepository,
} from '../repositories/run-facts.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import type { ChurnService } from './churn.service.ts';
import type { DetectionOf } from './projects.service.ts';
import type { PropagationService } from './propagation.service.ts';
import type { ResultsService } from './results.service.ts';

/** The split step's window over a history (Otava's default). */
const HISTORY_WINDOW = 50;
/**
 * The metrics a run's finish looks for change points in, each its own alert series:
 * propagation P50, P99, share within 1 s and time to 100 % (max); scale-up time to 100 %
 * joined and peak control-plane CPU; data-plane P99 and achieved rate at the series' load
 * point (the one its history shows by default).
 */
export const ALERT_METRICS = [
  'p50',
  'p99',
  'within1s',
  'max',
  'joined100',
  'cpuPeak',
  'loadP99',
  'achievedRps',
] as const satisfies readonly HistoryMetric[];
const isAlertMetric = (m: HistoryMetric): boolean =>
  (ALERT_METRICS as readonly string[]).includes(m);
/** The newest finished runs of a series a finish looks at, and the alerting detection. */
const ALERT_WINDOW = 100;
const ALERT_DETECTION = { maxPValue: 0.001, minMagnitude: 0.05, minSegment: 3, windowLen: 50 };
/**
 * A recheck (recheckAlerts) looks again at most this many runs whose data changed after their
 * change points were looked for, each kept at least RECHECK_SETTLED_MS before (a finish in
 * progress is its own).
 */
export const RECHECK_BATCH = 20;
export const RECHECK_SETTLED_MS = 30_000;
/** Runs whose facts are computed at once when none are kept yet. */
const READS_AT_ONCE = 8;

/** A control-plane CPU series: a metric named with "cpu" as a word (consul.server.cpu_pct). */
const isCpuSeries = (name: string) => /(^|[._\-/])cpu([._\-/]|$)/i.test(name);

/** An alert's series key: canonical JSON of benchmark, scenario, mesh, branch and metric. */
export const alertSeriesKey = (s: {
  benchmark: string;
  scenario: string;
  mesh: string;
  branch: string | null;
  metric: string;
}) => JSON.stringify([s.benchmark, s.scenario, s.mesh, s.branch, s.metric]);

/**
 * How a run's facts are computed, kept with them (run_metrics, beside the metrics): facts kept
 * by an older computation are computed again on their next read. 2: propagation pooled over a
 * run's changes, load steps merged over their generators and told apart by configuration, CPU
 * steady after the whole ramp and counters of CPU seconds as cores.
 */
export const FACTS_FORMULA = 2;
/** What run_metrics keeps beside the metrics: the formula, and how many changes were pooled. */
const FORMULA = 'factsFormula';
const POOLED_CHANGES = 'pooledChanges';
const META = [FORMULA, POOLED_CHANGES] as const;

/** Kept facts back as a run's facts, with the formula that computed them. */
function factsFromKept(k: KeptFacts): RunFacts & { formula: number | null } {
  const values: RunFacts['values'] = {};
  let formula: number | null = null;
  let pooledChanges: number | null = null;
  for (const m of k.metrics) {
    if (m.metric === FORMULA) formula = m.value;
    else if (m.metric === POOLED_CHANGES) pooledChanges = m.value;
    else
      values[m.metric as HistoryMetric] = {
        value: m.value,
        accuracy: m.accuracy as PercentileAccuracy | null,
      };
  }
  return { values, load: k.load as unknown as LoadFacts[], pooledChanges, formula };
}

/** The metrics of a run's propagation: pooled over the changes of a run with several. */
const POOLABLE = new Set<HistoryMetric>([
  'p50',
  'p90',
  'p95',
  'p96',
  'p99',
  'p99.9',
  'mean',
  'max',
  'within1s',
  'missing',
]);

const samePoint = (a: LoadPoint | null, b: unknown): boolean => {
  const p = b as LoadPoint | undefined;
  return (
    a !== null &&
    p !== undefined &&
    p.mode === a.mode &&
    p.connections === a.connections &&
    p.targetRps === a.targetRps &&
    (p.config ?? null) === a.config
  );
};

export function historyService(deps: {
  runs: RunsRepository;
  gates: Pick<GatesRepository, 'alertsOfSeries' | 'insertAlert' | 'updateAlert'>;
  facts: RunFactsRepository;
  propagation: Pick<PropagationService, 'changes' | 'propagation'>;
  churn: Pick<ChurnService, 'runPropagation'>;
  lifecycle: Pick<LifecycleRepository, 'phases'>;
  metrics: Pick<MetricsRepository, 'listSeries' | 'seriesRows'>;
  results: Pick<ResultsService, 'list'>;
  projects: { find(ref: string): Promise<{ id: string } | undefined>; detection: DetectionOf };
}) {
  const { runs, gates, facts, propagation, churn, lifecycle, metrics, results, projects } = deps;

  async function computeFacts(run: RunRow): Promise<RunFacts> {
    const startMs = run.startedAt.getTime();
    const values: RunFacts['values'] = {};
    let pooledChanges: number | null = null;
    const [first, second] = await propagation.changes(run.id);
    if (second) {
      // A churn run: every change's first applications pooled, never the first change alone.
      const all = await churn.runPropagation(run.id, {
        percentiles: PROPAGATION_HISTORY_PERCENTILES,
        withinMs: 1000,
        bins: 1,
        scale: 'linear',
      });
      Object.assign(values, pooledFacts(all.pooled));
      pooledChanges = all.changes.length;
    } else if (first) {
      const p = await propagation.propagation(run.id, first.id, {
        withinMs: 1000,
        bins: 1,
        scale: 'linear',
      });
      Object.assign(values, propagationFacts(p));
    }
    const phases = await lifecycle.phases(run.id);
    const join = phases
      .filter((p) => isJoinPhase(p.phase) && p.firsts.length > 0)
      .sort((a, b) => (a.firsts[0] as number) - (b.firsts[0] as number))[0];
    const joins = join ? joinFacts(join, run.topology, startMs) : null;
    if (joins) Object.assign(values, joins.values);
    const cpu = (await metrics.listSeries(run.id)).find((s) => isCpuSeries(s.name));
    if (cpu) {
      const toMs = run.finishedAt ? run.finishedAt.getTime() : Date.now();
      const rows = (await metrics.seriesRows(run.id, [cpu.id], startMs, toMs, false)).get(cpu.id);
      // A counter of CPU seconds (Istio's and Linkerd's process_cpu_seconds_total) in cores.
      const samples = isCpuSecondsCounter(cpu)
        ? cpuCoresRows(rows ?? [], startMs)
        : normalize(cpu.kind as SeriesKind, rows ?? [], startMs);
      Object.assign(values, cpuFacts(samples, steadyStart(phases, run.topology)?.atMs ?? null));
    }
    // Steps as GET /runs/{id}/results has them: a step of several generators by its merged row.
    const load = (await results.list(run.id)).filter((r) => r.generator === null).map(loadFacts);
    return { values, load, pooledChanges };
  }

  /** What the repository keeps of a run's computed facts. */
  const keptEntry = (run: RunRow, version: number, f: RunFacts): KeptFactsEntry => ({
    runId: run.id,
    version,
    facts: {
      load: f.load as unknown as Record<string, unknown>[],
      metrics: [
        ...Object.entries(f.values).map(([metric, v]) => ({
          metric,
          value: (v as Valued).value,
          accuracy: (v as Valued).accuracy as Record<string, unknown> | null,
        })),
        { metric: FORMULA, value: FACTS_FORMULA, accuracy: null },
        ...(f.pooledChanges === null
          ? []
          : [{ metric: POOLED_CHANGES, value: f.pooledChanges, accuracy: null }]),
      ],
    },
  });

  /** Computes a finished run's facts and keeps them, dated by the version read first. */
  async function computeAndKeep(run: RunRow, version: number): Promise<RunFacts> {
    const f = await computeFacts(run);
    await facts.store([keptEntry(run, version, f)], { alertsPending: true });
    return f;
  }

  /**
   * The runs' facts: kept ones read in one query (every metric, or only `metric`, with the
   * names of those kept in `names`); a run without current ones (running, finished before
   * they were kept, or written since) computed afresh and not kept: a read writes nothing
   * (a finish keeps them, and the background worker those of runs written since or older).
   */
  async function factsOfAll(
    rows: RunRow[],
    metric?: HistoryMetric,
  ): Promise<{ all: RunFacts[]; names: Set<string> }> {
    const kept = await facts.ofRuns(
      rows.map((r) => r.id),
      metric,
      META,
    );
    const out = new Array<RunFacts>(rows.length);
    const missing: number[] = [];
    const current: string[] = [];
    rows.forEach((r, i) => {
      const k = kept.get(r.id);
      const f = k ? factsFromKept(k) : null;
      if (
        r.status === 'finished' &&
        k &&
        f &&
        k.factsVersion === k.dataVersion &&
        f.formula === FACTS_FORMULA
      ) {
        out[i] = f;
        current.push(r.id);
      } else missing.push(i);
    });
    const names = new Set(metric === undefined ? [] : await facts.metricNames(current));
    // Computed a few at a time.
    let next = 0;
    const worker = async () => {
      while (next < missing.length) {
        const i = missing[next++] as number;
        out[i] = await computeFacts(rows[i] as RunRow);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, missing.length) }, worker));
    for (const f of out) for (const k of Object.keys(f.values)) names.add(k);
    return { all: out, names };
  }

  /** A history metric of a run; data-plane metrics at `point`. */
  const metricOf = (f: RunFacts, metric: HistoryMetric, point: LoadPoint | null) =>
    isLoadMetric(metric)
      ? point
        ? loadValue(f.load, point, metric)
        : null
      : (f.values[metric] ?? null);

  /** The settings a history uses: the request's, else its runs' one project's, else the defaults. */
  async function detectionFor(
    q: HistoryQuery,
    projectIds: Set<string>,
  ): Promise<DetectionSettings & { source: 'request' | 'project' | 'default' }> {
    const [only] = projectIds;
    const base =
      projectIds.size === 1 && only
        ? await projects.detection(only)
        : { detection: { ...DEFAULT_DETECTION }, set: {} };
    const overridden =
      q.maxPValue !== undefined || q.minMagnitude !== undefined || q.minSegment !== undefined;
    return {
      maxPValue: q.maxPValue ?? base.detection.maxPValue,
      minMagnitude: q.minMagnitude ?? base.detection.minMagnitude,
      minSegment: q.minSegment ?? base.detection.minSegment,
      source: overridden ? 'request' : Object.keys(base.set).length > 0 ? 'project' : 'default',
    };
  }

  /**
   * Keeps the change points of one series (one metric) as alerts. A change point found again
   * keeps its alert and state; one that later data moved to a nearby run takes its alert
   * along (the log says from where); one no longer found is marked so, never deleted; a
   * dismissed one stays dismissed.
   */
  async function keepAlerts(
    run: RunRow,
    series: {
      benchmark: string;
      scenario: string;
      mesh: string;
      branch: string | null;
      metric: string;
    },
    points: { runId: string; value: number }[],
    detection: typeof ALERT_DETECTION,
    extra: Record<string, unknown>,
  ): Promise<void> {
    const seriesKey = alertSeriesKey(series);
    const found = changePoints(
      points.map((p) => p.value),
      detection,
    ).points;
    const kept = await gates.alertsOfSeries(run.projectId, seriesKey, 'change-point');
    if (found.length === 0 && kept.length === 0) return;
    const indexOf = new Map(points.map((p, i) => [p.runId, i]));
    const now = new Date().toISOString();
    const claimed = new Set<string>();
    for (const c of found) {
      const runId = (points[c.index] as { runId: string }).runId;
      const previousRunId = (points[c.index - 1] as { runId: string }).runId;
      const details = {
        before: c.meanBefore,
        after: c.meanAfter,
        change: c.forwardChange,
        pValue: c.pValue,
        ...detection,
        ...extra,
      };
      const same = kept.find((a) => a.runId === runId && !claimed.has(a.id));
      // Moved: a kept alert of this series within the minimum segment of the new place that
      // no change point now sits on.
      const moved =
        same ??
        kept.find((a) => {
          if (claimed.has(a.id) || found.some((f) => points[f.index]?.runId === a.runId))
            return false;
          const at = indexOf.get(a.runId);
          return at !== undefined && Math.abs(at - c.index) < detection.minSegment;
        });
      if (moved) {
        claimed.add(moved.id);
        const log = [...(moved.log as Record<string, unknown>[])];
        if (moved.runId !== runId)
          log.push({
            at: now,
            by: 'meshbench',
            action: 'moved',
            fromRunId: moved.runId,
            toRunId: runId,
          });
        if (!moved.detected) log.push({ at: now, by: 'meshbench', action: 'detected' });
        await gates.updateAlert(moved.id, { runId, previousRunId, details, detected: true, log });
        continue;
      }
      await gates.insertAlert({
        id: randomUUID(),
        projectId: run.projectId,
        kind: 'change-point',
        seriesKey,
        series,
        runId,
        previousRunId,
        details,
        state: 'open',
        detected: true,
        log: [{ at: now, by: 'meshbench', action: 'detected', toRunId: runId }],
      });
    }
    for (const a of kept) {
      if (claimed.has(a.id) || !a.detected || !indexOf.has(a.runId)) continue;
      await gates.updateAlert(a.id, {
        detected: false,
        log: [
          ...(a.log as Record<string, unknown>[]),
          { at: now, by: 'meshbench', action: 'undetected' },
        ],
      });
    }
  }

  async function afterFinish(runId: string): Promise<void> {
    const run = await runs.find(runId);
    if (run?.status !== 'finished') return;
    const version = (await facts.ofRuns([run.id])).get(run.id)?.dataVersion ?? 0;
    await computeAndKeep(run, version);
    await changePointsOfSeries(run);
    await facts.alertsLookedFor(run.id, version);
  }

  /**
   * The change points of the run's series (its project, benchmark, scenario, mesh and branch;
   * the newest 100 finished runs) in every alerting metric the run has, kept as alerts. One
   * read of the series' kept facts.
   */
  async function changePointsOfSeries(run: RunRow): Promise<void> {
    // The project's settings (GET /projects/{id}/detection) over the alerting defaults.
    const detection = {
      ...ALERT_DETECTION,
      ...(await projects.detection(run.projectId)).detection,
    };
    const branch = run.labels.branch ?? null;
    const { rows } = await runs.list({
      project: run.projectId,
      benchmark: run.benchmark,
      scenario: run.scenario,
      mesh: run.meshName,
      status: 'finished',
      labels: branch === null ? [] : [['branch', branch]],
      sort: '-startedAt',
      limit: ALERT_WINDOW,
      offset: 0,
      privateProjects: run.projectId,
    });
    const ordered = rows
      .filter((r) => r.meshName === run.meshName && (r.labels.branch ?? null) === branch)
      .reverse();
    const { all } = await factsOfAll(ordered);
    const own = all[ordered.findIndex((r) => r.id === run.id)];
    if (!own) return;
    const loadPoint = chooseLoadPoint(
      all.flatMap((f) => f.load),
      {},
    );
    for (const metric of ALERT_METRICS) {
      if (metricOf(own, metric, loadPoint) === null) continue;
      const points: { runId: string; value: number }[] = [];
      ordered.forEach((r, i) => {
        const v = metricOf(all[i] as RunFacts, metric, loadPoint);
        if (v !== null) points.push({ runId: r.id, value: v.value });
      });
      const series = {
        benchmark: run.benchmark,
        scenario: run.scenario,
        mesh: run.meshName,
        branch,
        metric,
      };
      await keepAlerts(run, series, points, detection, isLoadMetric(metric) ? { loadPoint } : {});
    }
  }

  return {
    afterFinish,

    /**
     * The background worker's part: keeps the facts of finished runs that have none (they
     * finished before facts were kept), up to `limit`, dated by the version read first; no
     * alert is raised on them (alerts are for runs finishing now). Returns how many it kept.
     */
    async keepMissing(options: { limit?: number; projectId?: string } = {}): Promise<number> {
      const ids = await facts.withoutFacts(options.limit ?? RECHECK_BATCH, options.projectId);
      const toKeep: KeptFactsEntry[] = [];
      for (const id of ids) {
        const run = await runs.find(id);
        if (run?.status !== 'finished') continue;
        const version = (await facts.ofRuns([run.id])).get(run.id)?.dataVersion ?? 0;
        toKeep.push(keptEntry(run, version, await computeFacts(run)));
      }
      await facts.store(toKeep);
      return toKeep.length;
    },

    /**
     * Looks again at the change points of the series of finished runs whose data changed
     * after they were looked for (a result file, a late batch or metric points that came
     * after the finish), or whose finish did not get that far: their alerts move, appear or
     * are marked undetected as the data now says. A run that fails is tried at a later
     * recheck. Returns how many runs were looked at.
     */
    async recheckAlerts(
      options: {
        limit?: number;
        settledMs?: number;
        /** Only this project's runs. */
        projectId?: string;
        warn?: (error: unknown, runId: string) => void;
        /** Told of each run looked at. */
        looked?: (runId: string) => void;
      } = {},
    ): Promise<number> {
      const {
        limit = RECHECK_BATCH,
        settledMs = RECHECK_SETTLED_MS,
        projectId,
        warn,
        looked,
      } = options;
      const behind = await facts.alertsBehind(limit, settledMs, projectId);
      for (const runId of behind) {
        try {
          await afterFinish(runId);
          looked?.(runId);
        } catch (error) {
          warn?.(error, runId);
          await facts.postpone(runId);
        }
      }
      return behind.length;
    },

    async history(q: HistoryQuery, principal: Principal): Promise<History> {
      let projectId: string | undefined;
      if (q.project !== undefined) {
        const p = await projects.find(q.project);
        if (!p) throw notFound(`project "${q.project}"`);
        projectId = p.id;
      }
      const { rows } = await runs.list({
        benchmark: q.benchmark,
        scenario: q.scenario,
        mesh: q.mesh,
        project: projectId,
        labels: q.branch ? [['branch', q.branch]] : [],
        sort: '-startedAt',
        limit: q.limit,
        offset: 0,
        privateProjects: privateProjectsVisible(principal),
      });
      rows.reverse();
      const { all: facts, names } = await factsOfAll(rows, q.metric);
      const allLoad = facts.flatMap((f) => f.load);
      const loadPoint = chooseLoadPoint(allLoad, q);
      const has = names as Set<string> as Set<HistoryMetric>;
      if (loadPoint) for (const m of LOAD_METRICS) has.add(m);
      const points: HistoryPoint[] = rows.map((r, i) => {
        const v = metricOf(facts[i] as RunFacts, q.metric, loadPoint);
        return {
          runId: r.id,
          startedAt: r.startedAt.toISOString(),
          mesh: { name: r.meshName, version: r.meshVersion },
          scenario: r.scenario,
          labels: r.labels,
          value: v?.value ?? null,
          accuracy: v?.accuracy ?? null,
          pooledChanges:
            v !== null && POOLABLE.has(q.metric) ? (facts[i] as RunFacts).pooledChanges : null,
        };
      });
      const settings = await detectionFor(q, new Set(rows.map((r) => r.projectId)));
      const detection = {
        method: 'e-divisive-means-ttest' as const,
        maxPValue: settings.maxPValue,
        minMagnitude: settings.minMagnitude,
        minSegment: settings.minSegment,
        windowLen: HISTORY_WINDOW,
        source: settings.source,
      };
      const found = historyChangePoints(points, detection);
      // Each change point's kept alert, when a run's finish found it in this metric's series
      // (a data-plane one at the same load point).
      if (isAlertMetric(q.metric)) {
        const projectOf = new Map(rows.map((r) => [r.id, r.projectId]));
        const read = new Map<string, Promise<AlertRow[]>>();
        for (const c of found) {
          const pid = projectOf.get(c.runId);
          if (!pid) continue;
          const key = alertSeriesKey({
            benchmark: q.benchmark,
            scenario: c.scenario,
            mesh: c.mesh,
            branch: c.branch,
            metric: q.metric,
          });
          let alerts = read.get(`${pid} ${key}`);
          if (!alerts) {
            alerts = gates.alertsOfSeries(pid, key, 'change-point');
            read.set(`${pid} ${key}`, alerts);
          }
          const a = (await alerts).find(
            (x) =>
              x.runId === c.runId &&
              (!isLoadMetric(q.metric) || samePoint(loadPoint, x.details.loadPoint)),
          );
          if (a) c.alert = { id: a.id, state: a.state as AlertState };
        }
      }
      return {
        metric: q.metric,
        metrics: HISTORY_METRICS.filter((m) => has.has(m)),
        loadPoint,
        points,
        changePoints: found,
        detection,
      };
    },
  };
}

export type HistoryService = ReturnType<typeof historyService>;
