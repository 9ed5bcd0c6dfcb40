// Metric series and points in Postgres: series created by concurrent replicas without
// conflicts, points appended by COPY (never updated), and the reads behind stats, points
// and the timeline; plus the lifecycle-event aggregates of the timeline.
import { copyText, type Database, type Db, tables } from '@meshbench/db';
import type { Topology } from '@meshbench/schema';
import { asc, eq, type SQL, sql } from 'drizzle-orm';
import type { AggregateValues, StoredRow, ValueClass } from '../domain/series-math.ts';

const { metricSeries, runs } = tables;

/** The longest interval a row may cover (the StatsD flush interval's upper bound). */
const MAX_INTERVAL_MS = 3_600_000;

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
const iso = (ms: number) => new Date(ms).toISOString();
const isUuid = (s: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

export interface RunWindow {
  id: string;
  slug: string;
  environment: string | null;
  startedMs: number;
  finishedMs: number | null;
  topology: Topology;
}

export interface SeriesToEnsure {
  runId: string;
  source: string;
  name: string;
  kind: string;
  unit: string | null;
  tags: Record<string, string>;
  keyHash: string;
}

export interface SeriesRow {
  id: string;
  name: string;
  kind: string;
  source: string;
  unit: string | null;
  tags: Record<string, string>;
}

/** Buckets of `bucketMs` from `fromMs`; times before fall in the first, after in the last. */
export interface BucketAxis {
  fromMs: number;
  toMs: number;
  bucketMs: number;
  buckets: number;
}

/** The lower bounds of buckets 1.. for width_bucket(), which then clamps as the axis does. */
const bucketBounds = (axis: BucketAxis) =>
  Array.from({ length: axis.buckets - 1 }, (_, i) => iso(axis.fromMs + (i + 1) * axis.bucketMs));

/** One bucket of a series as the timeline shows it. */
export interface BucketValues {
  bucket: number;
  value: number | null;
  min: number | null;
  max: number | null;
}

/** One lifecycle phase at bucket granularity (see lifecycleBuckets). */
export interface PhaseBuckets {
  phase: string;
  observed: number;
  attrsTotal: number | null;
  /** Bucket index -> entities whose first arrival falls in it. */
  arrivals: Map<number, number>;
  /** 1-based rank -> that entity's first arrival, epoch ms. */
  atRank: Map<number, number>;
}

/** A point row ready for COPY; values in epoch ms. */
export interface PointToStore extends AggregateValues {
  runId: string;
  seriesId: string;
  tMs: number;
  intervalMs: number;
  startAtMs: number | null;
  replica: string;
  quantiles: { q: number; value: number }[] | null;
}

const POINT_COLUMNS = [
  'run_id',
  'series_id',
  't',
  'interval_ms',
  'start_at',
  'replica',
  'count',
  'sum',
  'min',
  'max',
  'last',
  'last_at',
  'members',
  'sketch',
  'quantiles',
];

const n = (v: number | null) => (v === null || !Number.isFinite(v) ? '\\N' : String(v));
const arrayLiteral = (members: string[]) =>
  `{${members.map((m) => `"${m.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;

const DAY_MS = 86_400_000;
/** Epoch ms of year 10000: past it (or before 1970) timestamps take the slow path. */
const YEAR_10000_MS = 253_402_300_800_000;
const pad2 = (v: number) => (v < 10 ? `0${v}` : String(v));
const pad3 = (v: number) => (v < 10 ? `00${v}` : v < 100 ? `0${v}` : String(v));
let copyDay = Number.NaN;
let copyDayPrefix = '';
let lastCopyMs = Number.NaN;
let lastCopyText = '';

/**
 * A timestamp for COPY, exactly as Date.toISOString() writes it (milliseconds truncated).
 * Rows are written by the hundred thousand, and toISOString was the largest single cost of
 * writing them: the date part is kept per day, the time of day is arithmetic.
 */
export function copyTimestamp(ms: number): string {
  if (ms === lastCopyMs) return lastCopyText;
  const t = Math.trunc(ms);
  let text: string;
  if (!(t >= 0 && t < YEAR_10000_MS)) {
    text = new Date(ms).toISOString();
  } else {
    const day = Math.floor(t / DAY_MS);
    if (day !== copyDay) {
      copyDay = day;
      copyDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    }
    let rest = t - day * DAY_MS;
    const hours = Math.floor(rest / 3_600_000);
    rest -= hours * 3_600_000;
    const minutes = Math.floor(rest / 60_000);
    rest -= minutes * 60_000;
    const seconds = Math.floor(rest / 1000);
    text = `${copyDayPrefix}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(rest - seconds * 1000)}Z`;
  }
  lastCopyMs = ms;
  lastCopyText = text;
  return text;
}

function copyLine(p: PointToStore): string {
  return `${p.runId}\t${p.seriesId}\t${copyTimestamp(p.tMs)}\t${Math.round(p.intervalMs)}\t${
    p.startAtMs === null ? '\\N' : copyTimestamp(p.startAtMs)
  }\t${copyText(p.replica)}\t${n(p.count) === '\\N' ? '0' : n(p.count)}\t${n(p.sum)}\t${n(p.min)}\t${n(
    p.max,
  )}\t${n(p.last)}\t${p.lastAtMs === null ? '\\N' : copyTimestamp(p.lastAtMs)}\t${
    p.members ? copyText(arrayLiteral(p.members)) : '\\N'
  }\t${p.sketch ? `\\\\x${Buffer.from(p.sketch.buffer, p.sketch.byteOffset, p.sketch.byteLength).toString('hex')}` : '\\N'}\t${
    p.quantiles ? copyText(JSON.stringify(p.quantiles)) : '\\N'
  }\n`;
}

function* copyChunks(points: PointToStore[]): Generator<string> {
  let chunk = '';
  for (const p of points) {
    chunk += copyLine(p);
    if (chunk.length > 256 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

const toBytes = (v: unknown): Uint8Array | null =>
  v === null || v === undefined ? null : v instanceof Uint8Array ? v : null;

/** The list under `key`, made empty the first time. */
function listOf<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

export function metricsRepository(database: Database) {
  const db: Db = database.db;
  /** The latest time (epoch ms) in a run's rows of `table`, or null when it has none. */
  const latestMs = async (table: SQL, column: SQL, runId: string): Promise<number | null> => {
    const result = await db.execute(
      sql`select (extract(epoch from max(${column})) * 1000)::float8 as t from ${table} where run_id = ${runId}`,
    );
    const t = rowsOf<{ t: number | null }>(result)[0]?.t;
    return t === null || t === undefined ? null : Number(t);
  };
  const runColumns = sql`id, slug, environment, topology,
    (extract(epoch from started_at) * 1000)::float8 as started_ms,
    (extract(epoch from finished_at) * 1000)::float8 as finished_ms`;
  const toWindow = (r: {
    id: string;
    slug: string;
    environment: string | null;
    topology: Topology;
    started_ms: unknown;
    finished_ms: unknown;
  }): RunWindow => ({
    id: r.id,
    slug: r.slug,
    environment: r.environment,
    topology: r.topology ?? {},
    startedMs: Number(r.started_ms),
    finishedMs: r.finished_ms === null ? null : Number(r.finished_ms),
  });

  return {
    /** Runs named by id or slug. */
    async runsByRef(refs: string[]): Promise<RunWindow[]> {
      if (refs.length === 0) return [];
      const ids = refs.filter(isUuid);
      const result = await db.execute(sql`select ${runColumns} from runs
        where slug = any(${sql.param(refs)}::text[])
          or id = any(${sql.param(ids)}::uuid[])`);
      return rowsOf<Parameters<typeof toWindow>[0]>(result).map(toWindow);
    },

    /** Runs of these environments (null: runs without one) whose window touches [from, to]. */
    async runsInWindow(
      environments: (string | null)[],
      fromMs: number,
      toMs: number,
    ): Promise<RunWindow[]> {
      const named = environments.filter((e): e is string => e !== null);
      const unnamed = environments.some((e) => e === null);
      const result = await db.execute(sql`select ${runColumns} from runs
        where (environment = any(${sql.param(named)}::text[])
            or (${unnamed}::boolean and environment is null))
          and started_at <= ${iso(toMs)}::timestamptz
          and (finished_at is null or finished_at >= ${iso(fromMs)}::timestamptz)
        order by started_at desc
        limit 1000`);
      return rowsOf<Parameters<typeof toWindow>[0]>(result).map(toWindow);
    },

    /**
     * Series ids, creating the missing ones. Replicas race to create the same series:
     * the unique (run, key) index settles it, and the loser reads the winner's id.
     */
    async ensureSeries(list: SeriesToEnsure[]): Promise<Map<string, string>> {
      const ids = new Map<string, string>();
      for (let i = 0; i < list.length; i += 2000) {
        const part = list.slice(i, i + 2000);
        // Arrays as parameters (one per column): cheap to build for thousands of series.
        const column = <T>(f: (s: SeriesToEnsure) => T) => sql.param(part.map(f));
        const result = await db.execute(sql`
          with wanted as (
            select * from unnest(${column((s) => s.runId)}::uuid[], ${column((s) => s.source)}::text[],
              ${column((s) => s.name)}::text[], ${column((s) => s.kind)}::text[],
              ${column((s) => s.unit)}::text[], ${column((s) => JSON.stringify(s.tags))}::jsonb[],
              ${column((s) => s.keyHash)}::text[])
              as w(run_id, source, name, kind, unit, tags, key_hash)
          ), created as (
            insert into metric_series (run_id, source, name, kind, unit, tags, key_hash)
            select * from wanted
            on conflict (run_id, key_hash) do nothing
            returning id, run_id, key_hash
          )
          select id::text as id, run_id::text as run_id, key_hash from created
          union all
          select m.id::text, m.run_id::text, m.key_hash from metric_series m
            join wanted w on m.run_id = w.run_id and m.key_hash = w.key_hash`);
        for (const r of rowsOf<{ id: string; run_id: string; key_hash: string }>(result)) {
          ids.set(`${r.run_id}|${r.key_hash}`, r.id);
        }
      }
      return ids;
    },

    /** Appends points with COPY in one transaction. */
    async appendPoints(points: PointToStore[]): Promise<void> {
      if (points.length === 0) return;
      await database.transaction((tx) =>
        tx.copy('metric_points', POINT_COLUMNS, copyChunks(points)),
      );
    },

    async listSeries(runId: string): Promise<SeriesRow[]> {
      const rows = await db
        .select({
          id: metricSeries.id,
          name: metricSeries.name,
          kind: metricSeries.kind,
          source: metricSeries.source,
          unit: metricSeries.unit,
          tags: metricSeries.tags,
        })
        .from(metricSeries)
        .where(eq(metricSeries.runId, runId))
        .orderBy(asc(metricSeries.name), asc(metricSeries.id));
      return rows.map((r) => ({ ...r, id: String(r.id) }));
    },

    /**
     * The stored rows of some series of a run whose interval touches [fromMs, toMs] (a
     * StatsD interval that began just before the run started holds the run's first
     * samples), in time order.
     * Sketches and set members are read only when asked for (they are the heavy columns).
     */
    async seriesRows(
      runId: string,
      seriesIds: string[],
      fromMs: number,
      toMs: number,
      heavy: boolean,
    ): Promise<Map<string, StoredRow[]>> {
      const out = new Map<string, StoredRow[]>();
      if (seriesIds.length === 0) return out;
      const result = await db.execute(sql`
        select series_id::text as s, (extract(epoch from t) * 1000)::float8 as t, interval_ms as i,
          (extract(epoch from start_at) * 1000)::float8 as st, count as c, sum, min, max, last,
          (extract(epoch from last_at) * 1000)::float8 as la
          ${heavy ? sql`, members, sketch` : sql``}
        from metric_points
        where run_id = ${runId} and series_id = any(${sql.param(seriesIds.map(Number))}::bigint[])
          and t >= ${iso(fromMs - MAX_INTERVAL_MS)}::timestamptz and t <= ${iso(toMs)}::timestamptz
          and (t >= ${iso(fromMs)}::timestamptz
            or t + interval_ms * interval '1 millisecond' > ${iso(fromMs)}::timestamptz)
        order by series_id, t`);
      for (const r of rowsOf<{
        s: string;
        t: number;
        i: number;
        st: number | null;
        c: number;
        sum: number | null;
        min: number | null;
        max: number | null;
        last: number | null;
        la: number | null;
        members?: string[] | null;
        sketch?: unknown;
      }>(result)) {
        listOf(out, r.s).push({
          tMs: Number(r.t),
          intervalMs: Number(r.i),
          startAtMs: r.st === null ? null : Number(r.st),
          count: Number(r.c),
          sum: r.sum === null ? null : Number(r.sum),
          min: r.min === null ? null : Number(r.min),
          max: r.max === null ? null : Number(r.max),
          last: r.last === null ? null : Number(r.last),
          lastAtMs: r.la === null ? null : Number(r.la),
          members: r.members ?? null,
          sketch: toBytes(r.sketch),
        });
      }
      return out;
    },

    /** Latest point time of the run's series (ms), for the axis of an unfinished run. */
    lastPointMs: (runId: string) => latestMs(sql`metric_points`, sql`t`, runId),

    /**
     * The series of a run downsampled to time buckets in the database, so that only the
     * buckets leave it: the same rows and the same arithmetic as normalize() and
     * bucketize() in domain/series-math.ts (each class given by the caller), in the same
     * order. Rows with set members count by `last` (the members are not read).
     */
    async seriesBuckets(
      runId: string,
      kinds: { kind: string; cls: ValueClass; deltas: boolean }[],
      axis: BucketAxis,
      seriesIds: string[] | null,
    ): Promise<Map<string, BucketValues[]>> {
      const out = new Map<string, BucketValues[]>();
      const from = iso(axis.fromMs);
      const result = await db.execute(sql`
        -- Materialized, and the points found by an array of ids: points loaded a moment ago
        -- have no statistics yet, and a plan that joined each point to metric_series would
        -- cost far more than the points themselves.
        with wanted as materialized (
          select m.id as series_id, k.cls, k.deltas
          from metric_series m
          join unnest(${sql.param(kinds.map((k) => k.kind))}::text[],
            ${sql.param(kinds.map((k) => k.cls))}::text[],
            ${sql.param(kinds.map((k) => k.deltas))}::boolean[]) as k(kind, cls, deltas)
            on k.kind = m.kind
          where m.run_id = ${runId}
            ${seriesIds ? sql`and m.id = any(${sql.param(seriesIds.filter((id) => /^\d{1,18}$/.test(id)).map(Number))}::bigint[])` : sql``}
        ), stored as (
          select p.series_id, w.cls, w.deltas, p.t, p.interval_ms, p.last_at, p.start_at,
            p.count, p.sum, p.min, p.max, p.last,
            width_bucket(p.t, ${sql.param(bucketBounds(axis))}::timestamptz[]) as bucket
          from metric_points p join wanted w on w.series_id = p.series_id
          where p.run_id = ${runId} and p.series_id = any(array(select series_id from wanted))
            and p.t >= ${iso(axis.fromMs - MAX_INTERVAL_MS)}::timestamptz
            and p.t <= ${iso(axis.toMs)}::timestamptz
            and (p.t >= ${from}::timestamptz
              or p.t + p.interval_ms * interval '1 millisecond' > ${from}::timestamptz)
        ), normal as (
          -- Plain rows (normalize's plain()).
          select series_id, cls, bucket, t,
            coalesce(last_at, t + interval_ms * interval '1 millisecond') as at,
            case when cls = 'sum' then coalesce(sum, 0) when cls = 'set' then coalesce(last, 0)
              when cls = 'level' then last end as value,
            count as cnt, coalesce(sum, 0) as total,
            case when cls = 'level' and last is not null then coalesce(min, last) else min end as lo,
            case when cls = 'level' and last is not null then coalesce(max, last) else max end as hi
          from stored where (start_at is null or cls = 'level') and not (deltas and last is null)
          union all
          -- Delta up-down counters are a level: the running sum of their deltas.
          select series_id, cls, bucket, t, at, level, cnt, total, level, level
          from (
            select series_id, cls, bucket, t, at, count as cnt, coalesce(sum, 0) as total,
              sum(coalesce(sum, 0)) over (partition by series_id order by t, at
                rows unbounded preceding) as level
            from (
              select *, coalesce(last_at, t + interval_ms * interval '1 millisecond') as at
              from stored where deltas and last is null
            ) d
          ) levels
          union all
          -- Cumulative streams become increases (normalize's increase()).
          select series_id, cls, bucket, t, coalesce(last_at, t),
            case when cls <> 'sum' then 0
              when prev_t is null then case when in_run then coalesce(last, 0) else 0 end
              when coalesce(last, 0) >= coalesce(prev_last, 0) then coalesce(last, 0) - coalesce(prev_last, 0)
              else coalesce(last, 0) end,
            inc_count, inc_sum,
            case when cls = 'sum' or inc_count <> 0 then min end,
            case when cls = 'sum' or inc_count <> 0 then max end
          from (
            select *,
              case when prev_t is not null and count >= prev_count then count - prev_count
                when prev_t is not null or in_run then count else 0 end as inc_count,
              case when prev_t is not null and count >= prev_count then coalesce(sum, 0) - coalesce(prev_sum, 0)
                when prev_t is not null or in_run then coalesce(sum, 0) else 0 end as inc_sum
            from (
              select s.*, s.start_at >= ${from}::timestamptz as in_run,
                lag(t) over w as prev_t, lag(last) over w as prev_last,
                lag(count) over w as prev_count, lag(sum) over w as prev_sum
              from stored s where start_at is not null and cls <> 'level'
              window w as (partition by series_id, start_at order by t)
            ) l
          ) streams
        ), windowed as (
          -- Both windows share one sort, by (series, bucket, t, at), which the grouping
          -- below keeps: sums add up in time order, as bucketize() does.
          select *, sum(value) over (partition by series_id, bucket, t) as interval_total,
            lead(bucket) over (partition by series_id order by bucket, t, at) is distinct from bucket
              as bucket_last
          from normal
        )
        select series_id::text as s, bucket as b,
          case min(cls)
            when 'sum' then sum(value)
            when 'level' then min(value) filter (where bucket_last)
            when 'set' then greatest(0, max(value))
            else case when sum(cnt) > 0 then sum(total) / sum(cnt) end end as v,
          case min(cls) when 'sum' then min(interval_total) when 'set' then min(value) else min(lo) end as lo,
          case min(cls) when 'sum' then max(interval_total) when 'set' then max(value) else max(hi) end as hi
        from windowed group by series_id, bucket
        order by series_id, bucket`);
      for (const r of rowsOf<{
        s: string;
        b: number;
        v: number | null;
        lo: number | null;
        hi: number | null;
      }>(result)) {
        listOf(out, r.s).push({
          bucket: Number(r.b),
          value: r.v === null ? null : Number(r.v),
          min: r.lo === null ? null : Number(r.lo),
          max: r.hi === null ? null : Number(r.hi),
        });
      }
      return out;
    },

    /** The time of the run's last lifecycle event (ms), for the axis of an unfinished run. */
    lastLifecycleMs: (runId: string) => latestMs(sql`lifecycle_events`, sql`at`, runId),

    /**
     * Per phase, in the order the phases began: the entities seen, the largest numeric
     * attrs.total of its events, each entity's first arrival counted per bucket of the
     * axis, and the first arrivals (epoch ms) at the ranks that reach each of `percents`
     * of any total the phase may be measured against (the attrs total, the entities seen,
     * `totals`): the rank is rankFor() of domain/lifecycle.ts, in float8 like JavaScript.
     * Only buckets and those few arrivals leave the database.
     */
    async lifecycleBuckets(
      runId: string,
      axis: BucketAxis,
      totals: number[],
      percents: readonly number[],
    ): Promise<PhaseBuckets[]> {
      const result = await db.execute(sql`
        -- Every step is one pass over the run's events or over a few rows: no join of two
        -- large sets, whatever the planner estimates for freshly loaded events.
        with firsts as materialized (
          select phase, min(at) as first_at,
            width_bucket(min(at), ${sql.param(bucketBounds(axis))}::timestamptz[]) as bucket,
            max(case when jsonb_typeof(attrs->'total') = 'number' then (attrs->>'total')::float8 end) as total
          from lifecycle_events where run_id = ${runId}
          group by phase, entity
        ), phases as materialized (
          select phase, min(first_at) as first_at, max(total) as attrs_total
          from firsts group by phase
        ), counts as materialized (
          select phase, bucket, count(*) as n from firsts group by phase, bucket
        ), cumulative as (
          select phase, bucket, n, (sum(n) over (partition by phase order by bucket))::bigint - n as before,
            (sum(n) over (partition by phase))::bigint as observed
          from counts
        ), wanted as materialized (
          select distinct c.phase, c.bucket, r.rank, r.rank - c.before as k
          from cumulative c join phases p using (phase)
          cross join lateral (
            select greatest(1, ceil(pc / 100 * total - 1e-9::float8))::bigint as rank
            from unnest(array[p.attrs_total, c.observed::float8] || ${sql.param(totals)}::float8[]) total,
              unnest(${sql.param([...percents])}::float8[]) pc
            where total > 0
          ) r
          where r.rank > c.before and r.rank <= c.before + c.n
        ), in_wanted as (
          -- Only the arrivals in buckets that hold a wanted rank are sorted.
          select phase, bucket, first_at,
            row_number() over (partition by phase, bucket order by first_at) as k
          from firsts where bucket = any(array(select bucket from wanted))
        )
        select p.phase, 'phase' as part, p.attrs_total as a,
          (extract(epoch from p.first_at) * 1000)::float8 as b
        from phases p
        union all
        select phase, 'bucket', bucket, n from counts
        union all
        select w.phase, 'rank', w.rank, (extract(epoch from i.first_at) * 1000)::float8
        from wanted w join in_wanted i using (phase, bucket, k)`);
      const rows = rowsOf<{
        phase: string;
        part: 'phase' | 'bucket' | 'rank';
        a: number | string | null;
        b: number | string;
      }>(result);
      const byPhase = new Map<string, PhaseBuckets & { firstMs: number }>();
      for (const r of rows) {
        if (r.part !== 'phase') continue;
        byPhase.set(r.phase, {
          phase: r.phase,
          observed: 0,
          attrsTotal: r.a === null ? null : Number(r.a),
          arrivals: new Map(),
          atRank: new Map(),
          firstMs: Number(r.b),
        });
      }
      for (const r of rows) {
        const p = byPhase.get(r.phase);
        if (!p || r.part === 'phase') continue;
        if (r.part === 'bucket') {
          p.arrivals.set(Number(r.a), Number(r.b));
          p.observed += Number(r.b);
        } else p.atRank.set(Number(r.a), Number(r.b));
      }
      return [...byPhase.values()]
        .sort((x, y) => x.firstMs - y.firstMs || (x.phase < y.phase ? -1 : 1))
        .map(({ firstMs: _, ...p }) => p);
    },

    runExists: async (runId: string) =>
      (await db.select({ id: runs.id }).from(runs).where(eq(runs.id, runId)).limit(1)).length > 0,
  };
}
export type MetricsRepository = ReturnType<typeof metricsRepository>;
