// Sharing: a report freezes what the run or comparison page shows, so the link keeps
// showing it whatever happens to the runs later, and reaches nothing else.
import { randomUUID } from 'node:crypto';
import type { CreatedReport, CreateReportBody, Report, ReportRun, Run } from '@meshbench/schema';
import { type Principal, writeRefusal } from '../domain/access.ts';
import { AppError, notFound } from '../errors.ts';
import type { ReportsRepository } from '../repositories/reports.repository.ts';
import { comparabilityOfRuns, factsOf, whereRun } from './comparability.service.ts';
import type { CompareSignificanceService } from './compare-significance.service.ts';
import type { HeadlinesService } from './headlines.service.ts';
import { refuse } from './projects.service.ts';
import type { PropagationService } from './propagation.service.ts';
import type { ResultsService } from './results.service.ts';
import { newSlug, type RunsService } from './runs.service.ts';
import type { TailService } from './tail.service.ts';
import type { TimelineService } from './timeline.service.ts';

/** Points per line of a frozen timeline: what the compare page draws, half a page wide. */
export const REPORT_TIMELINE_POINTS = 400;

const pct = (fraction: number | null) =>
  fraction === null ? 'n/a' : `${(fraction * 100).toFixed(1)} %`;
const ms = (v: number | undefined) =>
  v === undefined ? 'n/a' : v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${v.toFixed(1)} ms`;
const meshName = (run: Pick<Run, 'mesh'>) =>
  `${run.mesh.name}${run.mesh.version ? ` ${run.mesh.version}` : ''}`;

const rate = (rps: number) => `${rps.toLocaleString('en-US', { maximumFractionDigits: 2 })} RPS`;

/**
 * The headline a link preview shows: per run, its kept headline (GET /runs/headlines) in
 * words, saying what it is over: "P99 1.2 s pooled over 20 changes, 71.3 % within 1 s; worst
 * change c7: P99 7.9 s", "P99 39.5 ms at 500,000 RPS, merged over 3 generators". A report
 * frozen before headlines were kept: its first change's P99 and share within 1 s.
 */
export function headline(runs: ReportRun[]): string {
  return runs
    .map(({ run, changes, loadResults, headline: h }) => {
      if (h?.kind === 'propagation') {
        const over = h.summary === 'pooled' ? ` pooled over ${h.changes} changes` : '';
        const worst = h.worst ? `; worst change ${h.worst.changeId}: P99 ${ms(h.worst.p99Ms)}` : '';
        return `${meshName(run)}: P99 ${ms(h.p99?.ms)}${over}, ${pct(h.withinFraction)} within ${h.withinMs / 1000} s${worst}`;
      }
      if (h?.kind === 'data-plane') {
        const at = h.rps === null ? '' : ` at ${rate(h.rps)}`;
        const merged = h.generators === null ? '' : `, merged over ${h.generators} generators`;
        const config = h.config === null ? '' : ` (${h.config})`;
        return `${meshName(run)}: P99 ${ms(h.p99?.ms)}${at}${config}${merged}`;
      }
      const first = changes[0];
      if (first) {
        const p99 = first.linear.percentiles.find((p) => p.p === 99)?.ms;
        return `${meshName(run)}: P99 ${ms(p99)}, ${pct(first.linear.withinFraction)} within ${first.linear.withinMs / 1000} s`;
      }
      if (loadResults.length > 0) return `${meshName(run)}: ${loadResults.length} load test points`;
      return meshName(run);
    })
    .join(' · ');
}

/** The percentiles a report keeps of a stages run: the run page's defaults (P50, P90, P99). */
export const REPORT_STAGE_PERCENTILES = [50, 90, 99] as const;

export function reportsService(deps: {
  reports: ReportsRepository;
  runs: RunsService;
  propagation: PropagationService;
  tail: TailService;
  results: ResultsService;
  timeline: Pick<TimelineService, 'timeline'>;
  headlines: Pick<HeadlinesService, 'ofRun'>;
  compareSignificance: Pick<CompareSignificanceService, 'ofReport'>;
}) {
  const { reports, runs, propagation, tail, results, timeline: timelines, headlines } = deps;

  /** A comparison's intervals, frozen on each compared run's changes (not the baseline's). */
  async function withIntervals(snapshot: ReportRun[]): Promise<ReportRun[]> {
    if (snapshot.length < 2) return snapshot;
    const percentiles = snapshot[0]?.changes[0]?.linear.percentiles.map((x) => x.p) ?? [];
    if (percentiles.length === 0) return snapshot;
    const intervals = await deps.compareSignificance.ofReport(
      snapshot.map((r) => ({
        runId: r.run.id,
        changeIds: r.changes.map((c) => c.linear.change.id),
      })),
      percentiles,
    );
    return snapshot.map((r, i) => ({
      ...r,
      changes: r.changes.map((c) => {
        const kept = intervals[i]?.get(c.linear.change.id);
        return kept ? { ...c, intervals: kept } : c;
      }),
    }));
  }

  async function snapshotOf(run: Run): Promise<ReportRun> {
    const changes = [];
    for (const change of await propagation.changes(run.id)) {
      const log = await propagation.propagation(run.id, change.id, {
        withinMs: 1000,
        bins: 60,
        scale: 'log',
      });
      const p99 = log.percentiles.find((p) => p.p === 99)?.ms;
      const linear = await propagation.propagation(run.id, change.id, {
        withinMs: 1000,
        bins: 60,
        scale: 'linear',
        ...(p99 !== undefined && log.minMs !== null && p99 > log.minMs
          ? { toMs: Math.ceil(p99) }
          : {}),
      });
      changes.push({ linear, log, tail: await tail.tail(run.id, change.id, { limit: 20 }) });
    }
    // A report shows no share id or project of its runs: it reaches nothing else.
    const { slug: _slug, projectId: _projectId, ...shown } = run;
    const timeline = await timelines.timeline(run.id, { points: REPORT_TIMELINE_POINTS });
    const hasTimeline = timeline.phases.length > 0 || timeline.series.length > 0;
    const stages = await results.stages(run.id, [...REPORT_STAGE_PERCENTILES]);
    return {
      run: shown,
      changes,
      loadResults: await results.list(run.id),
      timeline: hasTimeline ? timeline : null,
      stages: stages.series.length > 0 ? stages : null,
      headline: await headlines.ofRun(run.id),
    };
  }

  return {
    /** Sharing needs write access to every run shown: a reader cannot publish a private run. */
    async create(body: CreateReportBody, principal: Principal): Promise<CreatedReport> {
      const chosen = await Promise.all(body.runs.map((ref) => runs.get(ref)));
      for (const run of chosen) refuse(writeRefusal(principal, run.projectId));
      const ids = new Set(chosen.map((r) => r.id));
      if (ids.size !== chosen.length) {
        throw new AppError(400, 'invalid_report', 'a run appears twice in "runs"', {
          field: 'runs',
        });
      }
      const runsOf = [];
      for (const run of chosen) runsOf.push(await snapshotOf(run));
      const snapshot = await withIntervals(runsOf);
      const title =
        body.title ??
        (chosen.length === 1
          ? `${meshName(chosen[0] as Run)} · ${(chosen[0] as Run).scenario}`
          : `${chosen.map(meshName).join(' vs ')} · ${(chosen[0] as Run).scenario}`);
      const slug = newSlug();
      await reports.insert({
        id: randomUUID(),
        slug,
        title,
        runIds: chosen.map((r) => r.id),
        snapshot: { runs: snapshot, description: headline(snapshot) },
      });
      return { slug, url: `/r/${slug}`, title };
    },

    async get(slug: string): Promise<Report> {
      const row = await reports.bySlug(slug);
      if (!row) throw notFound('report');
      const snapshot = row.snapshot as { runs: ReportRun[]; description: string };
      return {
        slug: row.slug,
        title: row.title,
        description: snapshot.description,
        createdAt: row.createdAt.toISOString(),
        runs: snapshot.runs,
        // Checked on the runs as frozen, so a report made before the check has it too.
        comparability:
          snapshot.runs.length < 2
            ? null
            : comparabilityOfRuns(
                snapshot.runs.map(({ run, loadResults }, i) =>
                  factsOf(run, loadResults, whereRun(run, i === 0)),
                ),
              ),
      };
    },

    /** Whoever may write to the report's runs may delete it. */
    async delete(slug: string, principal: Principal): Promise<void> {
      const row = await reports.bySlug(slug);
      if (!row) throw notFound('report');
      // A deleted run still counts: its project is in its audit row, so a report of deleted
      // runs is not anyone's to delete.
      for (const runId of row.runIds) {
        const projectId = await runs.projectOf(runId);
        if (projectId) refuse(writeRefusal(principal, projectId));
      }
      if (!(await reports.delete(slug))) throw notFound('report');
    },
  };
}
export type ReportsService = ReturnType<typeof reportsService>;
