// History: one metric across the runs of a benchmark (propagation, scale-up or data plane),
// read from the runs' kept facts (run-facts.service.ts), with the change points of each
// series and the alert a finish kept for each (change-points.service.ts).
import {
  type AlertState,
  DEFAULT_DETECTION,
  type DetectionSettings,
  HISTORY_METRICS,
  type History,
  type HistoryMetric,
  type HistoryPoint,
  type HistoryQuery,
} from '@meshbench/schema';
import { type Principal, privateProjectsVisible } from '../domain/access.ts';
import { historyChangePoints } from '../domain/history-change-points.ts';
import {
  chooseLoadPoint,
  isLoadMetric,
  LOAD_METRICS,
  metricOf,
  POOLABLE,
  type RunFacts,
  samePoint,
} from '../domain/history-metrics.ts';
import { notFound } from '../errors.ts';
import type { AlertRow } from '../repositories/gates.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import { type AlertsService, alertSeriesKey } from './alerts.service.ts';
import { isAlertMetric } from './change-points.service.ts';
import type { DetectionOf } from './projects.service.ts';
import type { RunFactsService } from './run-facts.service.ts';

/** The split step's window over a history (Otava's default). */
const HISTORY_WINDOW = 50;

export function historyService(deps: {
  runs: Pick<RunsRepository, 'list'>;
  runFacts: Pick<RunFactsService, 'ofRuns'>;
  alerts: Pick<AlertsService, 'ofSeries'>;
  projects: { find(ref: string): Promise<{ id: string } | undefined>; detection: DetectionOf };
}) {
  const { runs, runFacts, projects } = deps;

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
      const { all: facts, names } = await runFacts.ofRuns(rows, q.metric);
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
            alerts = deps.alerts.ofSeries(pid, key, 'change-point');
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
