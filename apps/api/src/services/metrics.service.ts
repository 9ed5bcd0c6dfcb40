// Reading a run's metrics: its series with their stats, and one series' points, on the
// run's axis (the scale-up timeline, on the same axis, is timeline.service.ts).
import type {
  ExemplarsQuery,
  PointsQuery,
  Series,
  SeriesExemplar,
  SeriesKind,
  SeriesPoints,
  SeriesQuery,
  SeriesSource,
} from '@meshbench/schema';
import {
  bucketize,
  bucketWidth,
  combineStats,
  normalize,
  STAT_PERCENTILES,
  valueClass,
} from '../domain/series-math.ts';
import { notFound } from '../errors.ts';
import type { LifecycleRepository } from '../repositories/lifecycle.repository.ts';
import type { MetricsRepository, SeriesRow } from '../repositories/metrics.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import { readSeriesRows } from './series-reader.ts';

const needsHeavy = (kind: string) => {
  const cls = valueClass(kind as SeriesKind);
  return cls === 'set' || cls === 'distribution';
};

/** A series as the API names it. */
export const describeSeries = (s: SeriesRow) => ({
  id: s.id,
  name: s.name,
  kind: s.kind as SeriesKind,
  source: s.source as SeriesSource,
  unit: s.unit,
  tags: s.tags,
});

/** The run with this id or slug, or a 404. */
export async function findRun(runs: Pick<RunsRepository, 'find'>, ref: string): Promise<RunRow> {
  const row = await runs.find(ref);
  if (!row) throw notFound(`run "${ref}"`);
  return row;
}

/** The run's axis: its start to its finish, or to its last data while it runs. */
export async function runAxis(
  deps: {
    metrics: Pick<MetricsRepository, 'lastPointMs'>;
    lifecycle: Pick<LifecycleRepository, 'lastEventMs'>;
  },
  row: RunRow,
): Promise<{ fromMs: number; toMs: number }> {
  const fromMs = row.startedAt.getTime();
  if (row.finishedAt) return { fromMs, toMs: row.finishedAt.getTime() };
  const [lastPoint, lastLife] = await Promise.all([
    deps.metrics.lastPointMs(row.id),
    deps.lifecycle.lastEventMs(row.id),
  ]);
  return { fromMs, toMs: Math.max(fromMs + 1000, lastPoint ?? fromMs, lastLife ?? fromMs) };
}

export function metricsService(deps: {
  runs: RunsRepository;
  metrics: MetricsRepository;
  lifecycle: LifecycleRepository;
}) {
  const { runs, metrics } = deps;
  const run = (ref: string) => findRun(runs, ref);
  const axis = (row: RunRow) => runAxis(deps, row);

  const rowsFor = (runId: string, list: SeriesRow[], fromMs: number, toMs: number) =>
    readSeriesRows(metrics, runId, list, fromMs, toMs, needsHeavy);

  return {
    async series(ref: string, q: SeriesQuery = {}): Promise<Series[]> {
      const ps = q.percentiles ?? STAT_PERCENTILES;
      const row = await run(ref);
      const list = await metrics.listSeries(row.id);
      const fromMs = row.startedAt.getTime();
      const toMs = row.finishedAt ? row.finishedAt.getTime() : Date.UTC(9999, 0, 1);
      const rows = await rowsFor(row.id, list, fromMs, toMs);
      return list.map((s) => ({
        ...describeSeries(s),
        stats: combineStats(
          s.kind as SeriesKind,
          normalize(s.kind as SeriesKind, rows.get(s.id) ?? [], fromMs),
          ps,
          fromMs,
        ),
      }));
    },

    async points(ref: string, seriesId: string, q: PointsQuery): Promise<SeriesPoints> {
      const row = await run(ref);
      const list = await metrics.listSeries(row.id);
      const s = list.find((x) => x.id === seriesId);
      if (!s) throw notFound(`series "${seriesId}" of run "${ref}"`);
      const { fromMs, toMs } = await axis(row);
      const kind = s.kind as SeriesKind;
      const rows = (await rowsFor(row.id, [s], fromMs, toMs)).get(s.id) ?? [];
      const normal = normalize(kind, rows, fromMs);
      const bucketMs = bucketWidth(toMs - fromMs, q.points);
      const buckets = Math.max(1, Math.ceil((toMs - fromMs + 1) / bucketMs));
      const points = bucketize(kind, normal, fromMs, bucketMs, buckets, {
        percentiles: true,
        ...(q.percentiles ? { asked: q.percentiles } : {}),
      });
      return {
        series: {
          ...describeSeries(s),
          stats: combineStats(kind, normal, q.percentiles ?? STAT_PERCENTILES, fromMs),
        },
        bucketMs,
        points: points.map((p) => ({ t: new Date(fromMs + p.offsetMs).toISOString(), ...p })),
      };
    },

    /** The exemplars kept with a series' points over the run's window, oldest first. */
    async exemplars(ref: string, seriesId: string, q: ExemplarsQuery): Promise<SeriesExemplar[]> {
      const row = await run(ref);
      const list = await metrics.listSeries(row.id);
      if (!list.some((x) => x.id === seriesId)) {
        throw notFound(`series "${seriesId}" of run "${ref}"`);
      }
      const { fromMs, toMs } = await axis(row);
      const found = await metrics.exemplars(row.id, seriesId, fromMs, toMs, q.limit);
      return found.map((e) => ({
        t: new Date(e.tMs).toISOString(),
        offsetMs: e.tMs - fromMs,
        value: e.value,
        labels: e.labels,
      }));
    },
  };
}
export type MetricsService = ReturnType<typeof metricsService>;
