// Change points: when a run finishes, the change points of its series (its project,
// benchmark, scenario, mesh and branch) in every alerting metric, kept as alerts; and the
// recheck of finished runs written after theirs were looked for.
import type { HistoryMetric } from '@meshbench/schema';
import {
  chooseLoadPoint,
  isLoadMetric,
  metricOf,
  type RunFacts,
} from '../domain/history-metrics.ts';
import type { RunFactsRepository } from '../repositories/run-facts.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import type { AlertsService } from './alerts.service.ts';
import type { DetectionOf } from './projects.service.ts';
import type { RunFactsService } from './run-facts.service.ts';

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
export const isAlertMetric = (m: HistoryMetric): boolean =>
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

export function changePointsService(deps: {
  runs: Pick<RunsRepository, 'find' | 'list'>;
  facts: Pick<RunFactsRepository, 'alertsLookedFor' | 'alertsBehind' | 'postpone'>;
  runFacts: Pick<RunFactsService, 'keep' | 'ofRuns'>;
  alerts: Pick<AlertsService, 'keepChangePoints'>;
  projects: { detection: DetectionOf };
}) {
  const { runs, facts, runFacts, alerts, projects } = deps;

  async function afterFinish(runId: string): Promise<void> {
    const run = await runs.find(runId);
    if (run?.status !== 'finished') return;
    const version = await runFacts.keep(run);
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
    const { all } = await runFacts.ofRuns(ordered);
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
      await alerts.keepChangePoints(
        run,
        series,
        points,
        detection,
        isLoadMetric(metric) ? { loadPoint } : {},
      );
    }
  }

  return {
    afterFinish,

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
  };
}
export type ChangePointsService = ReturnType<typeof changePointsService>;
