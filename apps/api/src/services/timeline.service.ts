// The scale-up timeline: a run's lifecycle phases and series on one axis from its start.
// The repositories read each phase's kept first arrivals and the series' stored rows (in
// binary COPY); the bucketing and the ranks that time-to-percent reads are done here.
import type { SeriesKind, Timeline, TimelineQuery } from '@meshbench/schema';
import {
  arrivalsPerBucket,
  declaredTotal,
  phaseFromArrivals,
  rankFor,
  steadyStart,
  TIME_TO_PERCENTS,
} from '../domain/lifecycle.ts';
import {
  bucketize,
  bucketWidth,
  normalize,
  type StatPercentile,
  valueClass,
} from '../domain/series-math.ts';
import {
  cpuCoresRows,
  isCpuSecondsCounter,
  type LevelRow,
  peakAndSteady,
} from '../domain/steady-levels.ts';
import type { KeptPhase, LifecycleRepository } from '../repositories/lifecycle.repository.ts';
import type { MetricsRepository } from '../repositories/metrics.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import { describeSeries, findRun, runAxis } from './metrics.service.ts';
import { readSeriesRows } from './series-reader.ts';

/** Buckets of `bucketMs` from `fromMs`; times before fall in the first, after in the last. */
export interface BucketAxis {
  fromMs: number;
  toMs: number;
  bucketMs: number;
  buckets: number;
}

/** One bucket of a series as the timeline shows it. */
export interface BucketValues {
  bucket: number;
  value: number | null;
  min: number | null;
  max: number | null;
  quantiles?: StatPercentile[];
}

/** One lifecycle phase at bucket granularity (see phaseBuckets). */
export interface PhaseBuckets {
  phase: string;
  observed: number;
  attrsTotal: number | null;
  /** Bucket index -> entities whose first arrival falls in it. */
  arrivals: Map<number, number>;
  /** 1-based rank -> that entity's first arrival, epoch ms. */
  atRank: Map<number, number>;
}

/**
 * The series of a run downsampled to the axis' buckets: their stored rows (light
 * columns: sets count by `last`, distributions by their mean) through normalize() and
 * bucketize().
 */
export async function seriesBuckets(
  metrics: Pick<MetricsRepository, 'seriesRows'>,
  runId: string,
  list: { id: string; kind: SeriesKind }[],
  axis: BucketAxis,
): Promise<Map<string, BucketValues[]>> {
  return (await readSeries(metrics, runId, list, axis)).buckets;
}

/**
 * seriesBuckets(), with the rows the series' peak and steady levels are read from: a level
 * series' normalized rows, a CPU-seconds counter's rows as cores.
 */
async function readSeries(
  metrics: Pick<MetricsRepository, 'seriesRows'>,
  runId: string,
  list: { id: string; kind: SeriesKind; name?: string; unit?: string | null }[],
  axis: BucketAxis,
): Promise<{ buckets: Map<string, BucketValues[]>; levels: Map<string, LevelRow[]> }> {
  // Summaries' quantiles are a heavy column, read for them alone.
  const rows = await readSeriesRows(
    metrics,
    runId,
    list,
    axis.fromMs,
    axis.toMs,
    (kind) => kind === 'summary',
  );
  const out = new Map<string, BucketValues[]>();
  const levels = new Map<string, LevelRow[]>();
  for (const { id, kind, name, unit } of list) {
    const stored = rows.get(id);
    if (!stored) continue;
    const normal = normalize(kind, stored, axis.fromMs);
    if (valueClass(kind) === 'level') levels.set(id, normal);
    else if (name !== undefined && isCpuSecondsCounter({ name, kind, unit: unit ?? null }))
      levels.set(id, cpuCoresRows(stored, axis.fromMs));
    const buckets = bucketize(kind, normal, axis.fromMs, axis.bucketMs, axis.buckets);
    out.set(
      id,
      buckets.map((b) => ({
        bucket: b.offsetMs / axis.bucketMs,
        value: b.value,
        min: b.min,
        max: b.max,
        ...(b.quantiles ? { quantiles: b.quantiles } : {}),
      })),
    );
  }
  return { buckets: out, levels };
}

/**
 * Per phase, in the order the phases began: the entities seen, the largest numeric
 * attrs.total of its events, each entity's first arrival counted per bucket of the axis,
 * and the first arrivals (epoch ms) at the ranks that reach each of `percents` of any
 * total the phase may be measured against (the attrs total, the entities seen, `totals`).
 */
export function phaseBuckets(
  kept: KeptPhase[],
  axis: BucketAxis,
  totals: number[],
  percents: readonly number[],
): PhaseBuckets[] {
  const byPhase = new Map(
    kept.map((r) => [r.phase, { firsts: r.firsts, attrsTotal: r.attrsTotal }]),
  );
  const phases = [...byPhase].map(([phase, p]) => {
    const firsts = p.firsts;
    const arrivals = arrivalsPerBucket(firsts, axis.fromMs, axis.buckets, axis.bucketMs);
    const atRank = new Map<number, number>();
    for (const total of [p.attrsTotal ?? 0, firsts.length, ...totals]) {
      if (!(total > 0)) continue;
      for (const percent of percents) {
        const rank = rankFor(percent, total);
        if (rank <= firsts.length) atRank.set(rank, firsts[rank - 1] as number);
      }
    }
    return {
      phase,
      observed: firsts.length,
      attrsTotal: p.attrsTotal,
      arrivals,
      atRank: new Map([...atRank].sort((a, b) => a[0] - b[0])),
      firstMs: firsts[0] as number,
    };
  });
  return phases
    .sort((x, y) => x.firstMs - y.firstMs || (x.phase < y.phase ? -1 : 1))
    .map(({ firstMs: _, ...p }) => p);
}

export function timelineService(deps: {
  runs: RunsRepository;
  metrics: MetricsRepository;
  lifecycle: LifecycleRepository;
}) {
  const { runs, metrics, lifecycle } = deps;
  return {
    /**
     * Lifecycle phases and series on one axis: each entity's first arrival and the series'
     * rows come from the database in binary COPY, and are bucketed here.
     */
    async timeline(ref: string, q: TimelineQuery): Promise<Timeline> {
      const row = await findRun(runs, ref);
      const { fromMs, toMs } = await runAxis(deps, row);
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
        const read = await readSeries(
          metrics,
          row.id,
          list.map((s) => ({ id: s.id, kind: s.kind as SeriesKind, name: s.name, unit: s.unit })),
          bucketAxis,
        );
        return { list, points: read.buckets, levels: read.levels };
      };
      // The phases and the series are read side by side, on two connections.
      const [{ life, settled }, { list, points, levels }] = await Promise.all([
        lifecycle.phases(row.id).then((kept) => ({
          life: phaseBuckets(kept, bucketAxis, totals, TIME_TO_PERCENTS),
          settled: steadyStart(kept, row.topology),
        })),
        series(),
      ]);

      // Steady = once the last phase reached 100 % (the whole ramp, not only the joins).
      const steadyFromMs = settled?.atMs ?? null;
      const steadyFrom = settled
        ? { phase: settled.phase, offsetMs: settled.atMs - fromMs, reached: settled.reached }
        : null;

      return {
        startedAt: row.startedAt.toISOString(),
        finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
        durationMs,
        bucketMs,
        steadyFrom,
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
          ...describeSeries(s),
          points: (points.get(s.id) ?? []).map((b) => ({
            offsetMs: b.bucket * bucketMs,
            value: b.value,
            min: b.min,
            max: b.max,
            ...(b.quantiles ? { quantiles: b.quantiles } : {}),
          })),
          ...(levels.has(s.id)
            ? {
                levels: {
                  ...peakAndSteady(levels.get(s.id) ?? [], steadyFromMs),
                  unit: valueClass(s.kind as SeriesKind) === 'level' ? s.unit : 'cores',
                },
              }
            : {}),
        })),
      };
    },
  };
}
export type TimelineService = ReturnType<typeof timelineService>;
