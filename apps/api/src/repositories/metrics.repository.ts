// Metric series and points in Postgres: series created by concurrent replicas without
// conflicts, points appended by COPY (never updated), and the reads behind stats, points
// and the timeline; plus the lifecycle-event aggregates of the timeline.
import { copyText, type Database, type Db, tables } from '@meshbench/db';
import type { Topology } from '@meshbench/schema';
import { asc, eq, sql } from 'drizzle-orm';
import type { AggregateValues, StoredRow } from '../domain/series-math.ts';

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

function copyLine(p: PointToStore): string {
  return `${p.runId}\t${p.seriesId}\t${iso(p.tMs)}\t${Math.round(p.intervalMs)}\t${
    p.startAtMs === null ? '\\N' : iso(p.startAtMs)
  }\t${copyText(p.replica)}\t${n(p.count) === '\\N' ? '0' : n(p.count)}\t${n(p.sum)}\t${n(p.min)}\t${n(
    p.max,
  )}\t${n(p.last)}\t${p.lastAtMs === null ? '\\N' : iso(p.lastAtMs)}\t${
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

export function metricsRepository(database: Database) {
  const db: Db = database.db;
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
        let list = out.get(r.s);
        if (!list) {
          list = [];
          out.set(r.s, list);
        }
        list.push({
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
    async lastPointMs(runId: string): Promise<number | null> {
      const result = await db.execute(
        sql`select (extract(epoch from max(t)) * 1000)::float8 as t from metric_points where run_id = ${runId}`,
      );
      const t = rowsOf<{ t: number | null }>(result)[0]?.t;
      return t === null || t === undefined ? null : Number(t);
    },

    /**
     * Per phase: each entity's first arrival (epoch ms, ascending), the largest numeric
     * attrs.total of its events and its last event. One scan of the run's lifecycle rows.
     */
    async lifecycleArrivals(
      runId: string,
    ): Promise<{ phase: string; firstMs: number[]; attrsTotal: number | null; lastMs: number }[]> {
      const result = await db.execute(sql`
        select phase,
          array_agg(first_ms order by first_ms) as first_ms,
          max(total) as attrs_total,
          max(last_ms) as last_ms
        from (
          select phase,
            (extract(epoch from min(at)) * 1000)::float8 as first_ms,
            (extract(epoch from max(at)) * 1000)::float8 as last_ms,
            max(case when jsonb_typeof(attrs->'total') = 'number' then (attrs->>'total')::float8 end) as total
          from lifecycle_events where run_id = ${runId}
          group by phase, entity
        ) f
        group by phase
        order by min(first_ms), phase`);
      return rowsOf<{
        phase: string;
        first_ms: (number | string)[];
        attrs_total: number | null;
        last_ms: number;
      }>(result).map((r) => ({
        phase: r.phase,
        firstMs: r.first_ms.map(Number),
        attrsTotal: r.attrs_total === null ? null : Number(r.attrs_total),
        lastMs: Number(r.last_ms),
      }));
    },

    runExists: async (runId: string) =>
      (await db.select({ id: runs.id }).from(runs).where(eq(runs.id, runId)).limit(1)).length > 0,
  };
}
export type MetricsRepository = ReturnType<typeof metricsRepository>;
