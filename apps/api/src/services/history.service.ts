// History: one metric across the runs of a benchmark (propagation, scale-up or data plane),
// with the change points of each series. What a run offers is computed once and kept in
// memory (at its finish, or on the first read), so a history of 1,000 runs reads it back.
import {
  type AlertState,
  DEFAULT_DETECTION,
  type DetectionSettings,
  HISTORY_METRICS,
  type History,
  type HistoryMetric,
  type HistoryPoint,
  type HistoryQuery,
  type SeriesKind,
} from '@meshbench/schema';
import { type Principal, privateProjectsVisible } from '../domain/access.ts';
import { historyChangePoints } from '../domain/history-change-points.ts';
import {
  chooseLoadPoint,
  cpuFacts,
  isJoinPhase,
  isLoadMetric,
  joinFacts,
  LOAD_METRICS,
  loadFacts,
  loadValue,
  propagationFacts,
  type RunFacts,
} from '../domain/history-metrics.ts';
import { normalize } from '../domain/series-math.ts';
import { notFound } from '../errors.ts';
import type { GatesRepository } from '../repositories/gates.repository.ts';
import type { LifecycleRepository } from '../repositories/lifecycle.repository.ts';
import type { MetricsRepository } from '../repositories/metrics.repository.ts';
import type { ResultsRepository } from '../repositories/results.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import type { DetectionOf } from './projects.service.ts';
import type { PropagationService } from './propagation.service.ts';

/** The split step's window over a history (Otava's default). */
const HISTORY_WINDOW = 50;
/** The metric whose change points a run's finish keeps as alerts (gates.service). */
const ALERT_METRIC = 'p99';
/** Finished runs whose facts are kept in memory; the oldest read is dropped first. */
const KEPT_RUNS = 50_000;
/** Runs read at once when their facts are not kept yet. */
const READS_AT_ONCE = 8;

/** A control-plane CPU series: a metric named with "cpu" as a word (consul.server.cpu_pct). */
const isCpuSeries = (name: string) => /(^|[._\-/])cpu([._\-/]|$)/i.test(name);

export function historyService(deps: {
  runs: RunsRepository;
  gates: Pick<GatesRepository, 'alertsOfSeries'>;
  propagation: Pick<PropagationService, 'changes' | 'propagation'>;
  lifecycle: Pick<LifecycleRepository, 'phases'>;
  metrics: Pick<MetricsRepository, 'listSeries' | 'seriesRows'>;
  results: Pick<ResultsRepository, 'ofRun'>;
  projects: { find(ref: string): Promise<{ id: string } | undefined>; detection: DetectionOf };
}) {
  const { runs, gates, propagation, lifecycle, metrics, results, projects } = deps;
  const kept = new Map<string, RunFacts>();

  async function computeFacts(run: RunRow): Promise<RunFacts> {
    const startMs = run.startedAt.getTime();
    const values: RunFacts['values'] = {};
    const [first] = await propagation.changes(run.id);
    if (first) {
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
      const samples = normalize(cpu.kind as SeriesKind, rows ?? [], startMs);
      Object.assign(values, cpuFacts(samples, joins?.lastJoinMs ?? null));
    }
    const load = (await results.ofRun(run.id)).map(loadFacts);
    return { values, load };
  }

  /** A run's facts: kept once it finished, computed afresh while it runs. */
  async function factsOf(run: RunRow): Promise<RunFacts> {
    const have = kept.get(run.id);
    if (have) return have;
    const facts = await computeFacts(run);
    if (run.status === 'finished') {
      kept.set(run.id, facts);
      if (kept.size > KEPT_RUNS) kept.delete(kept.keys().next().value as string);
    }
    return facts;
  }

  async function factsOfAll(rows: RunRow[]): Promise<RunFacts[]> {
    const out = new Array<RunFacts>(rows.length);
    let next = 0;
    const worker = async () => {
      while (next < rows.length) {
        const i = next++;
        out[i] = await factsOf(rows[i] as RunRow);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, rows.length) }, worker));
    return out;
  }

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

  return {
    /** Keeps a finished run's facts, so a history reads them without computing (run finish). */
    async remember(runId: string): Promise<void> {
      const run = await runs.find(runId);
      if (!run || run.status !== 'finished') return;
      kept.delete(run.id);
      await factsOf(run);
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
      const facts = await factsOfAll(rows);
      const allLoad = facts.flatMap((f) => f.load);
      const loadPoint = chooseLoadPoint(allLoad, q);
      const has = new Set<HistoryMetric>();
      for (const f of facts) for (const k of Object.keys(f.values)) has.add(k as HistoryMetric);
      if (loadPoint) for (const m of LOAD_METRICS) has.add(m);
      const points: HistoryPoint[] = rows.map((r, i) => {
        const f = facts[i] as RunFacts;
        const v = isLoadMetric(q.metric)
          ? loadPoint
            ? loadValue(f.load, loadPoint, q.metric)
            : null
          : (f.values[q.metric] ?? null);
        return {
          runId: r.id,
          startedAt: r.startedAt.toISOString(),
          mesh: { name: r.meshName, version: r.meshVersion },
          scenario: r.scenario,
          labels: r.labels,
          value: v?.value ?? null,
          accuracy: v?.accuracy ?? null,
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
      // Each change point's kept alert, when its run's finish found it in a P99 series.
      if (q.metric === ALERT_METRIC) {
        const projectOf = new Map(rows.map((r) => [r.id, r.projectId]));
        for (const c of found) {
          const pid = projectOf.get(c.runId);
          if (!pid) continue;
          const key = JSON.stringify([q.benchmark, c.scenario, c.mesh, c.branch, ALERT_METRIC]);
          const alerts = await gates.alertsOfSeries(pid, key, 'change-point');
          const a = alerts.find((x) => x.runId === c.runId);
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
