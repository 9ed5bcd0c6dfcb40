// Alerts: a failed gate, and each change point a finish finds in a series, kept as an alert
// with its state and log; read and triaged by a project's writers.
import { randomUUID } from 'node:crypto';
import type { Alert, AlertState, GateResult, UpdateAlertBody } from '@meshbench/schema';
import { type Principal, privateProjectsVisible, writeRefusal } from '../domain/access.ts';
import { changePoints } from '../domain/change-points.ts';
import { notFound } from '../errors.ts';
import type { AlertRow, GatesRepository } from '../repositories/gates.repository.ts';
import type { RunRow } from '../repositories/runs.repository.ts';
import { type ProjectsService, refuse } from './projects.service.ts';
import { type RunLookup, runOf } from './run-lookup.ts';

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

/** An alert's series key: canonical JSON of benchmark, scenario, mesh, branch and metric. */
export const alertSeriesKey = (s: {
  benchmark: string;
  scenario: string;
  mesh: string;
  branch: string | null;
  metric: string;
}) => JSON.stringify([s.benchmark, s.scenario, s.mesh, s.branch, s.metric]);

/** The series an alert belongs to. */
export interface AlertSeries {
  benchmark: string;
  scenario: string;
  mesh: string;
  branch: string | null;
  metric: string;
}

/** How change points are looked for in a series (e-divisive means, Otava's settings). */
export interface ChangePointSettings {
  maxPValue: number;
  minMagnitude: number;
  minSegment: number;
  windowLen: number;
}

export function alertsService(deps: {
  gates: Pick<
    GatesRepository,
    'alertsOf' | 'alert' | 'alertsOfSeries' | 'insertAlert' | 'updateAlert'
  >;
  runs: RunLookup;
  projects: Pick<ProjectsService, 'list' | 'tokenName'>;
}) {
  const { gates, runs, projects } = deps;

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
    const seriesKey = alertSeriesKey(series);
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

  /**
   * Keeps the change points of one series (one metric) as alerts. A change point found again
   * keeps its alert and state; one that later data moved to a nearby run takes its alert
   * along (the log says from where); one no longer found is marked so, never deleted; a
   * dismissed one stays dismissed.
   */
  async function keepChangePoints(
    run: Pick<RunRow, 'projectId'>,
    series: {
      benchmark: string;
      scenario: string;
      mesh: string;
      branch: string | null;
      metric: string;
    },
    points: { runId: string; value: number }[],
    detection: ChangePointSettings,
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

  return {
    /**
     * After a run finished: a failed gate, kept as an alert (its change points are the
     * change-points service's).
     */
    async alertsAfterFinish(runId: string, gate: GateResult | null): Promise<void> {
      const run = await runOf(runs, runId);
      if (gate) await gateAlert(run, gate);
    },

    keepChangePoints,

    /** A project's alerts of one series and kind, as kept. */
    ofSeries: (projectId: string, seriesKey: string, kind: string): Promise<AlertRow[]> =>
      gates.alertsOfSeries(projectId, seriesKey, kind),

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
  };
}
export type AlertsService = ReturnType<typeof alertsService>;
