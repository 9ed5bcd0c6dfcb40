// Reading a run's metrics: its series with their stats, one series' points, and the
// scale-up timeline (lifecycle phases and series on one axis from the run's start).
import type {
  PointsQuery,
  Series,
  SeriesKind,
  SeriesPoints,
  SeriesQuery,
  SeriesSource,
  Timeline,
  TimelineQuery,
} from '@meshbench/schema';
import { declaredTotal, phaseFromArrivals, TIME_TO_PERCENTS } from '../domain/lifecycle.ts';
import {
  bucketize,
  bucketWidth,
  combineStats,
  normalize,
  STAT_PERCENTILES,
  valueClass,
} from '../domain/series-math.ts';
import { notFound } from '../errors.ts';
import type { MetricsRepository, SeriesRow } from '../repositories/metrics.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';

const needsHeavy = (kind: string) => {
  const cls = valueClass(kind as SeriesKind);
  return cls === 'set' || cls === 'distribution';
};

const describe = (s: SeriesRow) => ({
  id: s.id,
  name: s.name,
  kind: s.kind as SeriesKind,
  source: s.source as SeriesSource,
  unit: s.unit,
  tags: s.tags,
});

export function metricsService(deps: { runs: RunsRepository; metrics: MetricsRepository }) {
  const { runs, metrics } = deps;

  async function run(ref: string): Promise<RunRow> {
    const row = await runs.find(ref);
    if (!row) throw notFound(`run "${ref}"`);
    return row;
  }

  /** The run's axis: its start to its finish, or to its last data while it runs. */
  async function axis(row: RunRow): Promise<{ fromMs: number; toMs: number }> {
    const fromMs = row.startedAt.getTime();
    if (row.finishedAt) return { fromMs, toMs: row.finishedAt.getTime() };
    const [lastPoint, lastLife] = await Promise.all([
      metrics.lastPointMs(row.id),
      metrics.lastLifecycleMs(row.id),
    ]);
    return { fromMs, toMs: Math.max(fromMs + 1000, lastPoint ?? fromMs, lastLife ?? fromMs) };
  }

  async function rowsFor(
    runId: string,
    list: SeriesRow[],
    fromMs: number,
    toMs: number,
    heavyToo: boolean,
  ) {
    const heavyIds = heavyToo ? list.filter((s) => needsHeavy(s.kind)).map((s) => s.id) : [];
    const lightIds = list.filter((s) => !heavyIds.includes(s.id)).map((s) => s.id);
    const [light, heavy] = await Promise.all([
      metrics.seriesRows(runId, lightIds, fromMs, toMs, false),
      metrics.seriesRows(runId, heavyIds, fromMs, toMs, true),
    ]);
    for (const [k, v] of heavy) light.set(k, v);
    return light;
  }

  return {
    async series(ref: string, q: SeriesQuery = {}): Promise<Series[]> {
      const ps = q.percentiles ?? STAT_PERCENTILES;
      const row = await run(ref);
      const list = await metrics.listSeries(row.id);
      const fromMs = row.startedAt.getTime();
      const toMs = row.finishedAt ? row.finishedAt.getTime() : Date.UTC(9999, 0, 1);
      const rows = await rowsFor(row.id, list, fromMs, toMs, true);
      return list.map((s) => ({
        ...describe(s),
        stats: combineStats(
          s.kind as SeriesKind,
          normalize(s.kind as SeriesKind, rows.get(s.id) ?? [], fromMs),
          ps,
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
      const rows = (await rowsFor(row.id, [s], fromMs, toMs, true)).get(s.id) ?? [];
      const normal = normalize(kind, rows, fromMs);
      const bucketMs = bucketWidth(toMs - fromMs, q.points);
      const buckets = Math.max(1, Math.ceil((toMs - fromMs + 1) / bucketMs));
      const points = bucketize(kind, normal, fromMs, bucketMs, buckets, {
        percentiles: true,
        ...(q.percentiles ? { asked: q.percentiles } : {}),
      });
      return {
        series: {
          ...describe(s),
          stats: combineStats(kind, normal, q.percentiles ?? STAT_PERCENTILES),
        },
        bucketMs,
        points: points.map((p) => ({ t: new Date(fromMs + p.offsetMs).toISOString(), ...p })),
      };
    },

    /**
     * Lifecycle phases and series on one axis: each entity's first arrival and the series'
     * rows come from the database in binary COPY, and are bucketed here.
     */
    async timeline(ref: string, q: TimelineQuery): Promise<Timeline> {
      const row = await run(ref);
      const { fromMs, toMs } = await axis(row);
      const durationMs = toMs - fromMs;
      const bucketMs = bucketWidth(durationMs, q.points);
      const buckets = Math.max(1, Math.ceil((durationMs + 1) / bucketMs));
      const bucketAxis = { fromMs, toMs, bucketMs, buckets };
      const { nodes, instances, services } = row.topology;
      const totals = [nodes, instances, services].filter((n): n is number => !!n && n > 0);
      const wanted = q.series ? q.series.split(',') : null;
      const series = async () => {
        const all = await metrics.listSeries(row.id);
        const list = wanted ? all.filter((s) => wanted.includes(s.id)) : all;
        const points = await metrics.seriesBuckets(
          row.id,
          list.map((s) => ({ id: s.id, kind: s.kind as SeriesKind })),
          bucketAxis,
        );
        return { list, points };
      };
      // The phases and the series are read side by side, on two connections.
      const [life, { list, points }] = await Promise.all([
        metrics.lifecycleBuckets(row.id, bucketAxis, totals, TIME_TO_PERCENTS),
        series(),
      ]);

      return {
        startedAt: row.startedAt.toISOString(),
        finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
        durationMs,
        bucketMs,
        phases: life.map((p) => {
          const { total, source } = declaredTotal(p.phase, p.attrsTotal, row.topology, p.observed);
          const atRank = new Map([...p.atRank].map(([rank, t]) => [rank, t - fromMs]));
          return {
            phase: p.phase,
            count: p.observed,
            total,
            totalSource: source,
            ...phaseFromArrivals({ ...p, atRank }, total, buckets, bucketMs),
          };
        }),
        series: list.map((s) => ({
          ...describe(s),
          points: (points.get(s.id) ?? []).map((b) => ({
            offsetMs: b.bucket * bucketMs,
            value: b.value,
            min: b.min,
            max: b.max,
            ...(b.quantiles ? { quantiles: b.quantiles } : {}),
          })),
        })),
      };
    },
  };
}
export type MetricsService = ReturnType<typeof metricsService>;
