// Metric series and points in Postgres: series created by concurrent replicas without
// conflicts, points appended by COPY (never updated), and the reads behind stats, points
// and the timeline; plus the lifecycle-event aggregates of the timeline.
import {
  CopyBinaryReader,
  CopyBinaryWriter,
  type Database,
  type Db,
  putFloat8Field,
  putInt4Field,
  putInt8Field,
  putInt16,
  putInt32,
  putNullField,
  tables,
  textArrayField,
  timestampLiteral,
  uuidField,
  uuidLiteral,
} from '@meshbench/db';
import type { SeriesKind, Topology } from '@meshbench/schema';
import { asc, eq, type SQL, sql } from 'drizzle-orm';
import { arrivalsPerBucket, rankFor } from '../domain/lifecycle.ts';
import {
  type AggregateValues,
  bucketize,
  normalize,
  type StoredRow,
} from '../domain/series-math.ts';
import { fromFloat8Send } from './float8-send.ts';

const { lifecyclePhases, metricSeries, runs } = tables;

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

/** Postgres' epoch (2000-01-01) in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;

/** A timestamptz(3) field from epoch ms, truncated to the millisecond as Date does. */
function putMsField(d: Uint8Array, p: number, ms: number | null): number {
  if (ms === null || !Number.isFinite(ms)) return putNullField(d, p);
  return putInt8Field(d, p, (Math.trunc(ms) - PG_EPOCH_MS) * 1000);
}

/**
 * Points to load, by column where a point has no field for it: a batch of OTLP records is
 * written as they are, with no second object per point.
 */
export interface PointRows {
  values: (AggregateValues & {
    tMs: number;
    intervalMs: number;
    startAtMs: number | null;
    quantiles: { q: number; value: number }[] | null;
  })[];
  runIds: string[];
  seriesIds: string[];
  replicas: string[];
}

/** Points as COPY's binary rows: Postgres parses no timestamp or float text. */
export function* copyChunks(rows: PointRows): Generator<Uint8Array> {
  const out = new CopyBinaryWriter();
  const uuids = new Map<string, Uint8Array>();
  const replicas = new Map<string, Uint8Array>();
  const { values, runIds, seriesIds } = rows;
  for (let i = 0; i < values.length; i++) {
    const p = values[i] as PointRows['values'][number];
    const runId = runIds[i] as string;
    const replicaName = rows.replicas[i] as string;
    let run = uuids.get(runId);
    if (!run) {
      run = uuidField(runId);
      uuids.set(runId, run);
    }
    let replica = replicas.get(replicaName);
    if (!replica) {
      const bytes = Buffer.from(replicaName);
      replica = new Uint8Array(4 + bytes.length);
      putInt32(replica, 0, bytes.length);
      replica.set(bytes, 4);
      replicas.set(replicaName, replica);
    }
    out.room(2 + run.length + 12 * 2 + 8 + replica.length + 12 * 6 + 12 + 4 * 3);
    const d = out.buf;
    let q = putInt16(d, out.pos, POINT_COLUMNS.length);
    d.set(run, q);
    q = putInt8Field(d, q + run.length, Number(seriesIds[i]));
    q = putMsField(d, q, p.tMs);
    q = putInt4Field(d, q, Math.round(p.intervalMs));
    q = putMsField(d, q, p.startAtMs);
    d.set(replica, q);
    q = putFloat8Field(d, q + replica.length, Number.isFinite(p.count) ? p.count : 0);
    q = putFloat8Field(d, q, p.sum);
    q = putFloat8Field(d, q, p.min);
    q = putFloat8Field(d, q, p.max);
    q = putFloat8Field(d, q, p.last);
    q = putMsField(d, q, p.lastAtMs);
    out.pos = q;
    if (p.members) out.bytes(textArrayField(p.members));
    else out.nullField();
    if (p.sketch) out.field(p.sketch);
    else out.nullField();
    out.text(p.quantiles ? JSON.stringify(p.quantiles) : undefined, JSONB_VERSION);
    if (out.hasFull()) yield* out.take();
  }
  yield* out.end();
}

/** Points given one object each, as columns. */
export const pointRows = (points: PointToStore[]): PointRows => ({
  values: points,
  runIds: points.map((p) => p.runId),
  seriesIds: points.map((p) => p.seriesId),
  replicas: points.map((p) => p.replica),
});

/** jsonb's binary form is a version byte, then the JSON text. */
const JSONB_VERSION = 1;

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
      await this.appendRows(pointRows(points));
    },

    async appendRows(rows: PointRows): Promise<void> {
      if (rows.values.length === 0) return;
      await database.transaction((tx) =>
        tx.copy('metric_points', POINT_COLUMNS, copyChunks(rows), { format: 'binary' }),
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
      const ids = seriesIds.filter((id) => /^\d{1,18}$/.test(id));
      if (ids.length === 0) return out;
      // Read through a binary COPY: thousands of rows of numbers, decoded without text.
      const from = timestampLiteral(fromMs);
      const r = new CopyBinaryReader(
        await database.copyOut(`
          select series_id, t, interval_ms, start_at, count, sum, min, max, last, last_at
            ${heavy ? ', members, sketch' : ''}
          from metric_points
          where run_id = ${uuidLiteral(runId)} and series_id = any('{${ids.join(',')}}'::bigint[])
            and t >= ${timestampLiteral(fromMs - MAX_INTERVAL_MS)} and t <= ${timestampLiteral(toMs)}
            and (t >= ${from} or t + interval_ms * interval '1 millisecond' > ${from})
          order by series_id, t`),
      );
      let seriesId = Number.NaN;
      let rows: StoredRow[] = [];
      while (r.next()) {
        const id = r.int() as number;
        if (id !== seriesId) {
          seriesId = id;
          rows = listOf(out, String(id));
        }
        rows.push({
          tMs: r.timestampMs() as number,
          intervalMs: r.int() as number,
          startAtMs: r.timestampMs(),
          count: r.float8() as number,
          sum: r.float8(),
          min: r.float8(),
          max: r.float8(),
          last: r.float8(),
          lastAtMs: r.timestampMs(),
          members: heavy ? (r.textArray() as string[] | null) : null,
          sketch: heavy ? r.bytes() : null,
        });
      }
      return out;
    },

    /** Latest point time of the run's series (ms), for the axis of an unfinished run. */
    lastPointMs: (runId: string) => latestMs(sql`metric_points`, sql`t`, runId),

    /**
     * The series of a run downsampled to the axis' buckets: their stored rows (light
     * columns: sets count by `last`, distributions by their mean) through normalize() and
     * bucketize().
     */
    async seriesBuckets(
      runId: string,
      list: { id: string; kind: SeriesKind }[],
      axis: BucketAxis,
    ): Promise<Map<string, BucketValues[]>> {
      const rows = await this.seriesRows(
        runId,
        list.map((x) => x.id),
        axis.fromMs,
        axis.toMs,
        false,
      );
      const out = new Map<string, BucketValues[]>();
      for (const { id, kind } of list) {
        const stored = rows.get(id);
        if (!stored) continue;
        const normal = normalize(kind, stored, axis.fromMs);
        const buckets = bucketize(kind, normal, axis.fromMs, axis.bucketMs, axis.buckets);
        out.set(
          id,
          buckets.map((b) => ({
            bucket: b.offsetMs / axis.bucketMs,
            value: b.value,
            min: b.min,
            max: b.max,
          })),
        );
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
     * `totals`). Each phase is one row, kept by ingest: its first arrivals, sorted.
     */
    async lifecycleBuckets(
      runId: string,
      axis: BucketAxis,
      totals: number[],
      percents: readonly number[],
    ): Promise<PhaseBuckets[]> {
      const rows = await db
        .select({
          phase: lifecyclePhases.phase,
          attrsTotal: lifecyclePhases.attrsTotal,
          firsts: lifecyclePhases.firsts,
        })
        .from(lifecyclePhases)
        .where(eq(lifecyclePhases.runId, runId));
      const byPhase = new Map(
        rows.map((r) => {
          const firsts = fromFloat8Send(r.firsts);
          for (let i = 0; i < firsts.length; i++) firsts[i] = (firsts[i] as number) / 1000;
          return [r.phase, { firsts, attrsTotal: r.attrsTotal }];
        }),
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
    },

    runExists: async (runId: string) =>
      (await db.select({ id: runs.id }).from(runs).where(eq(runs.id, runId)).limit(1)).length > 0,
  };
}
export type MetricsRepository = ReturnType<typeof metricsRepository>;
