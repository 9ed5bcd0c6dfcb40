// Metric series and points in Postgres: series created by concurrent replicas without
// conflicts, points appended by COPY (never updated), points that matched no run held for
// one created later, and the reads behind stats, points and the timeline.
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
  tables,
  textArrayField,
  timestampLiteral,
  uuidField,
  uuidLiteral,
} from '@meshbench/db';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { MetricRecord, StoredExemplar } from '../domain/metric-record.ts';
import type { AggregateValues, StoredRow } from '../domain/series-math.ts';
import { latestMs, putMsField } from './epoch.ts';
import { rowCountOf, rowsOf } from './result-rows.ts';
import { markRunsWritten, markRunsWrittenStatement } from './run-facts.repository.ts';
import { ensureRunPartitions } from './run-partitions.ts';
import type { RunWindow } from './runs.repository.ts';

const { metricSeries } = tables;

/** The longest interval a row may cover (the StatsD flush interval's upper bound). */
const MAX_INTERVAL_MS = 3_600_000;

const iso = (ms: number) => new Date(ms).toISOString();

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
  lastExact?: string | null;
  exemplars?: StoredExemplar[] | null;
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
  'last_exact',
  'exemplars',
];

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
    lastExact?: string | null;
    exemplars?: StoredExemplar[] | null;
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
    out.text(p.lastExact ?? undefined);
    out.text(p.exemplars ? JSON.stringify(p.exemplars) : undefined, JSONB_VERSION);
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

/** Postgres' unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** A point that matched no run, with its series' identity. */
export interface HeldPoint {
  record: MetricRecord;
  keyHash: string;
  /** The series' tags, sorted by key. */
  tags: Record<string, string>;
}

const HELD_COLUMNS = [
  'project_id',
  'environment',
  'source',
  'name',
  'kind',
  'unit',
  'tags',
  'key_hash',
  ...POINT_COLUMNS.filter((c) => c !== 'run_id' && c !== 'series_id'),
];

/** Held points as COPY's binary rows: the identity columns, then a point's. */
function* heldChunks(
  points: HeldPoint[],
  projectId: string | null,
  replica: string,
): Generator<Uint8Array> {
  const out = new CopyBinaryWriter();
  const project = projectId ? uuidField(projectId) : null;
  for (const { record: p, keyHash, tags } of points) {
    out.room(2 + 20 + 12 * 2 + 12 * 6 + 12 + 4 * 3);
    out.pos = putInt16(out.buf, out.pos, HELD_COLUMNS.length);
    if (project) out.bytes(project);
    else out.nullField();
    out.text(p.env ?? undefined);
    out.text(p.source);
    out.text(p.name);
    out.text(p.kind);
    out.text(p.unit ?? undefined);
    out.text(JSON.stringify(tags), JSONB_VERSION);
    out.text(keyHash);
    out.room(12 * 2 + 8 + 12 * 6);
    let q = putMsField(out.buf, out.pos, p.tMs);
    q = putInt4Field(out.buf, q, Math.round(p.intervalMs));
    q = putMsField(out.buf, q, p.startAtMs);
    out.pos = q;
    out.text(p.source === 'statsd' ? replica : '');
    out.room(12 * 6);
    q = putFloat8Field(out.buf, out.pos, Number.isFinite(p.count) ? p.count : 0);
    q = putFloat8Field(out.buf, q, p.sum);
    q = putFloat8Field(out.buf, q, p.min);
    q = putFloat8Field(out.buf, q, p.max);
    q = putFloat8Field(out.buf, q, p.last);
    q = putMsField(out.buf, q, p.lastAtMs);
    out.pos = q;
    if (p.members) out.bytes(textArrayField(p.members));
    else out.nullField();
    if (p.sketch) out.field(p.sketch);
    else out.nullField();
    out.text(p.quantiles ? JSON.stringify(p.quantiles) : undefined, JSONB_VERSION);
    out.text(p.lastExact ?? undefined);
    out.text(p.exemplars ? JSON.stringify(p.exemplars) : undefined, JSONB_VERSION);
    if (out.hasFull()) yield* out.take();
  }
  yield* out.end();
}

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
  return {
    /**
     * Series ids, creating the missing ones. Requests (of one replica or several) race to
     * create the same series: the unique (run, key) index settles it, and the loser reads
     * the winner's id. Not in the same statement: its snapshot predates the winner's commit
     * (the insert waited for it, then did nothing), so what it could not see is read again
     * by a statement of its own. A series still missing then has lost its run.
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
        const unseen = part.filter((s) => !ids.has(`${s.runId}|${s.keyHash}`));
        if (unseen.length === 0) continue;
        const again = await db.execute(sql`
          select m.id::text as id, m.run_id::text as run_id, m.key_hash from metric_series m
          join unnest(${sql.param(unseen.map((s) => s.runId))}::uuid[],
            ${sql.param(unseen.map((s) => s.keyHash))}::text[]) as w(run_id, key_hash)
            on m.run_id = w.run_id and m.key_hash = w.key_hash`);
        for (const r of rowsOf<{ id: string; run_id: string; key_hash: string }>(again)) {
          ids.set(`${r.run_id}|${r.key_hash}`, r.id);
        }
      }
      return ids;
    },

    /** Appends points with COPY in one transaction. */
    async appendPoints(points: PointToStore[]): Promise<void> {
      await this.appendRows(pointRows(points));
    },

    /**
     * Appends points with COPY in one transaction. A point stored before (an export
     * retried, here or through another replica) makes COPY fail on the unique index: then,
     * and only then, the points go through a scratch table and are inserted skipping those
     * already there, so the common case costs no more than COPY.
     */
    async appendRows(rows: PointRows): Promise<{ stored: number; duplicates: number }> {
      const n = rows.values.length;
      if (n === 0) return { stored: 0, duplicates: 0 };
      const runIds = [...new Set(rows.runIds)];
      await ensureRunPartitions(db, runIds, ['metric_points']);
      try {
        // Two round trips: BEGIN with the COPY, the runs' mark with the COMMIT.
        const then = markRunsWrittenStatement(runIds);
        await database.copyThenCommit('metric_points', POINT_COLUMNS, copyChunks(rows), {
          format: 'binary',
          ...(then ? { then } : {}),
        });
        return { stored: n, duplicates: 0 };
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      }
      const stored = await database.transaction(async (tx) => {
        await tx.db.execute(
          sql.raw(
            'create temporary table metric_points_incoming (like metric_points) on commit drop',
          ),
        );
        await tx.copy('metric_points_incoming', POINT_COLUMNS, copyChunks(rows), {
          format: 'binary',
        });
        const result = await tx.db.execute(
          sql.raw(`insert into metric_points select * from metric_points_incoming
            on conflict do nothing`),
        );
        const stored = rowCountOf(result);
        if (stored > 0) await markRunsWritten(tx.db, runIds);
        return stored;
      });
      return { stored, duplicates: n - stored };
    },

    /**
     * Keeps points that matched no run, with their series' identity, the project they may
     * go to (null: any) and their environment, for a run created later to claim.
     */
    async holdPoints(
      points: HeldPoint[],
      projectId: string | null,
      replica: string,
    ): Promise<void> {
      if (points.length === 0) return;
      await database.transaction((tx) =>
        tx.copy('unmatched_points', HELD_COLUMNS, heldChunks(points, projectId, replica), {
          format: 'binary',
        }),
      );
    },

    /**
     * Moves the held points a new run may claim into it: those of its project (or of none)
     * and environment that lie in its window, and for each cumulative stream the last one
     * at or before its start (the reference its first increase is counted from). The
     * points in its window are no longer held; the references stay (another run may
     * start after them too). Returns the points stored.
     */
    async claimHeld(run: RunWindow): Promise<number> {
      const started = iso(run.startedMs);
      const finished = run.finishedMs === null ? null : iso(run.finishedMs);
      const claimedCtes = sql`
          mine as (
            select ctid as held, * from unmatched_points u
            where (u.project_id is null or u.project_id = ${run.projectId}::uuid)
              and u.environment is not distinct from ${run.environment}::text
              and u.t <= coalesce(${finished}::timestamptz, 'infinity')
          ), inside as (
            select * from mine m
            where case when m.interval_ms > 0
              then m.t + m.interval_ms * interval '1 millisecond' > ${started}::timestamptz
              else m.t >= ${started}::timestamptz end
          ), reference as (
            select distinct on (m.key_hash, m.start_at) * from mine m
            where m.start_at is not null and m.kind <> 'gauge' and m.t < ${started}::timestamptz
            order by m.key_hash, m.start_at, m.t desc
          ), claimed as (
            select * from inside union all select * from reference
          )`;
      return database.transaction(async (tx) => {
        // Nothing to claim (most runs): no metric_points partition made for it.
        const [some] = rowsOf<{ any: boolean }>(
          await tx.db.execute(
            sql`with ${claimedCtes} select exists (select 1 from claimed) as any`,
          ),
        );
        if (some?.any !== true) return 0;
        await ensureRunPartitions(tx.db, [run.id], ['metric_points']);
        // The series first, in a statement of their own: a series an export creates for
        // this run at the same time is then committed before the next statement looks for
        // its id (in one statement its snapshot would not see it, and its points would be
        // dropped while released from the held ones).
        await tx.db.execute(sql`
          with ${claimedCtes}
          insert into metric_series (run_id, source, name, kind, unit, tags, key_hash)
          select distinct on (key_hash) ${run.id}::uuid, source, name, kind, unit, tags, key_hash
          from claimed
          on conflict (run_id, key_hash) do nothing`);
        const result = await tx.db.execute(sql`
          with ${claimedCtes}, ids as (
            select s.id, s.key_hash from metric_series s
            where s.run_id = ${run.id}::uuid and s.key_hash in (select key_hash from claimed)
          ), stored as (
            insert into metric_points (run_id, series_id, t, interval_ms, start_at, replica,
              count, sum, min, max, last, last_at, members, sketch, quantiles, last_exact,
              exemplars)
            select distinct on (c.held) ${run.id}::uuid, i.id, c.t, c.interval_ms, c.start_at,
              c.replica, c.count, c.sum, c.min, c.max, c.last, c.last_at, c.members, c.sketch,
              c.quantiles, c.last_exact, c.exemplars
            from claimed c join ids i on i.key_hash = c.key_hash
            order by c.held
            on conflict do nothing
            returning 1
          ), released as (
            delete from unmatched_points where ctid in (select held from inside)
          )
          select count(*)::int as n from stored`);
        const stored = Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
        // A run posted after the fact is finished already when it claims its points.
        if (stored > 0) await markRunsWritten(tx.db, [run.id]);
        return stored;
      });
    },

    /**
     * Forgets held points received more than `holdMs` ago, and the oldest beyond
     * `maxPoints`. Returns how many were forgotten.
     */
    async expireHeld(holdMs: number, maxPoints: number): Promise<number> {
      const old = await db.execute(
        sql`delete from unmatched_points where received_at < now() - ${holdMs} * interval '1 millisecond'`,
      );
      let n = rowCountOf(old);
      const over = await db.execute(sql`
        delete from unmatched_points where ctid in (
          select ctid from unmatched_points order by received_at desc offset ${maxPoints})`);
      n += rowCountOf(over);
      return n;
    },

    /** Which of `runIds` have any series of their own (what their timelines list). */
    async runsWithSeries(runIds: string[]): Promise<Set<string>> {
      if (runIds.length === 0) return new Set();
      const rows = await db
        .selectDistinct({ runId: metricSeries.runId })
        .from(metricSeries)
        .where(inArray(metricSeries.runId, runIds));
      return new Set(rows.map((r) => r.runId).filter((id): id is string => id !== null));
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
     * samples), and for each cumulative stream its last point before fromMs (what the
     * first increase in the range is counted from), in time order per series.
     * Sketches, set members and quantiles are read only when asked for (the heavy columns).
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
      const columns = `series_id, t, interval_ms, start_at, count, sum, min, max, last, last_at,
        last_exact ${heavy ? ', members, sketch, quantiles::text' : ''}`;
      const ofSeries = `run_id = ${uuidLiteral(runId)} and series_id = any('{${ids.join(',')}}'::bigint[])`;
      const r = new CopyBinaryReader(
        await database.copyOut(`
          select * from (
            select ${columns} from metric_points
            where ${ofSeries}
              and t >= ${timestampLiteral(fromMs - MAX_INTERVAL_MS)} and t <= ${timestampLiteral(toMs)}
              and (t >= ${from} or t + interval_ms * interval '1 millisecond' > ${from})
            union all
            select * from (
              select distinct on (series_id, start_at) ${columns} from metric_points
              where ${ofSeries} and start_at is not null and t < ${from} and interval_ms = 0
              order by series_id, start_at, t desc
            ) reference
          ) x
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
        const row: StoredRow = {
          tMs: r.timestampMs() as number,
          intervalMs: r.int() as number,
          startAtMs: r.timestampMs(),
          count: r.float8() as number,
          sum: r.float8(),
          min: r.float8(),
          max: r.float8(),
          last: r.float8(),
          lastAtMs: r.timestampMs(),
          lastExact: r.text(),
          members: heavy ? (r.textArray() as string[] | null) : null,
          sketch: heavy ? r.bytes() : null,
          quantiles: null,
        };
        if (heavy) {
          const q = r.text();
          row.quantiles = q ? (JSON.parse(q) as { q: number; value: number }[]) : null;
        }
        rows.push(row);
      }
      return out;
    },

    /**
     * The exemplars kept with a series' points in [fromMs, toMs], the latest `limit` of
     * them (by their points' times), oldest first.
     */
    async exemplars(
      runId: string,
      seriesId: string,
      fromMs: number,
      toMs: number,
      limit: number,
    ): Promise<StoredExemplar[]> {
      const result = await db.execute(sql`
        select exemplars::text as exemplars from metric_points
        where run_id = ${runId}::uuid and series_id = ${seriesId}::bigint
          and exemplars is not null
          and t >= ${iso(fromMs)}::timestamptz and t <= ${iso(toMs)}::timestamptz
        order by t desc limit ${limit}`);
      const all = rowsOf<{ exemplars: string }>(result).flatMap(
        (r) => JSON.parse(r.exemplars) as StoredExemplar[],
      );
      all.sort((a, b) => a.tMs - b.tMs);
      return all.slice(-limit);
    },

    /** Latest point time of the run's series (ms), for the axis of an unfinished run. */
    lastPointMs: (runId: string) => latestMs(db, sql`metric_points`, sql`t`, runId),
  };
}
export type MetricsRepository = ReturnType<typeof metricsRepository>;
