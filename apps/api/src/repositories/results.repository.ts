// Load results in Postgres.
import { type Database, type Db, tables } from '@meshbench/db';
import type { LoadResult, ResultFormat } from '@meshbench/schema';
import { and, asc, type Column, eq, getTableColumns, inArray, isNotNull, sql } from 'drizzle-orm';
import {
  gridWithUpload,
  intervalsWithUpload,
  keptSlotsOf,
  keptSlotsOfRun,
  type SlotBasis,
  type SlotRecord,
  sameBasis,
  slotOfRecord,
  slotRecord,
  slotRecords,
  slotStartsOf,
} from '../domain/load-slot-rows.ts';
import {
  addUploadFinishing,
  buildSlots,
  type IntervalSpans,
  keptAnswers,
  type Slot,
  type SlotGrid,
} from '../domain/load-steps.ts';
import { runSliced, yieldToLoop } from '../domain/slices.ts';
import { lockKey } from './events.repository.ts';
import {
  INTERVAL_COLUMNS,
  type IntervalRow,
  intervalCopyRows,
  STAGED_SLOT_COLUMNS,
  type StoredInterval,
  stagedSlotCopyRows,
} from './load-copy-rows.ts';
import { groupRows, rowsOf } from './result-rows.ts';
import { markRunsWritten } from './run-facts.repository.ts';
import { ensureRunPartitions } from './run-partitions.ts';

const {
  loadResults,
  loadIntervals,
  loadSlots,
  resultUploads,
  stagedLoadSlots,
  stagedResultUploads,
} = tables;

/** A result file as stored once: what recognises it again, and the answer it got. */
export interface ResultUpload {
  idempotencyKey: string | null;
  bodySha256: string;
  /** Its step parameters, canonical JSON. */
  step: string;
  answer: Record<string, unknown>;
}

/**
 * Records the upload before its points, in their transaction: false when one with its key
 * or its bytes and step is stored already (a concurrent one waits for the other's commit),
 * and then nothing is stored.
 */
async function claimUpload(tx: Tx, runId: string, upload: ResultUpload | undefined) {
  if (!upload) return true;
  const claimed = await tx
    .insert(resultUploads)
    .values({ runId, ...upload })
    .onConflictDoNothing()
    .returning({ id: resultUploads.id });
  return claimed.length > 0;
}
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type SlotRow = typeof loadSlots.$inferSelect;
export type LoadResultRow = typeof loadResults.$inferSelect;

/** A step's point as the interval formats store it: its row, its generator, its histograms. */
export interface IntervalPointInsert {
  result: LoadResult;
  generator: string | null;
  hdr: Uint8Array;
  intervals: StoredInterval[];
}

const asBuffer = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
/** bytea as node-postgres (Buffer) and PGlite (Uint8Array) give it. */
const asBytes = (v: unknown): Uint8Array => v as Uint8Array;

// Every column but the whole-step histogram: the results list does not carry it.
const { hdr: _hdr, ...listColumns } = getTableColumns(loadResults);

/**
 * How an upload's staged rows are loaded: by binary COPY, each piece in a transaction of its
 * own (Database.copyThenCommit). Without it they are inserted through drizzle (as before).
 */
export type BulkLoad = Pick<Database, 'copyThenCommit'>;

export function resultsRepository(db: Db, bulk?: BulkLoad) {
  return {
    /**
     * The earlier upload a new one repeats: the one with its Idempotency-Key if any, else
     * one with the same bytes and step parameters; null when there is none.
     */
    async findUpload(
      runId: string,
      idempotencyKey: string | undefined,
      bodySha256: string | null,
      step: string,
    ): Promise<ResultUpload | null> {
      const byKey =
        idempotencyKey === undefined ? sql`false` : sql`idempotency_key = ${idempotencyKey}`;
      const byBody =
        bodySha256 === null ? sql`false` : sql`(body_sha256 = ${bodySha256} and step = ${step})`;
      const [row] = await db
        .select({
          idempotencyKey: resultUploads.idempotencyKey,
          bodySha256: resultUploads.bodySha256,
          step: resultUploads.step,
          answer: resultUploads.answer,
        })
        .from(resultUploads)
        .where(and(eq(resultUploads.runId, runId), sql`(${byKey} or ${byBody})`))
        // The one with the key first (a constant cannot be an ORDER BY term).
        .orderBy(
          ...(idempotencyKey === undefined ? [] : [sql`(${byKey}) desc`]),
          asc(resultUploads.id),
        )
        .limit(1);
      return row ?? null;
    },

    /**
     * One transaction: a file's points are stored together or not at all, with the upload
     * that recognises the file again. Null: the upload was stored before (nothing stored).
     */
    async insert(
      runId: string,
      format: ResultFormat,
      results: LoadResult[],
      upload?: ResultUpload,
    ): Promise<number | null> {
      if (results.length === 0) return 0;
      let stored: number | null = 0;
      await db.transaction(async (tx) => {
        if (!(await claimUpload(tx, runId, upload))) {
          stored = null;
          return;
        }
        for (let i = 0; i < results.length; i += 500) {
          const rows = await tx
            .insert(loadResults)
            .values(results.slice(i, i + 500).map((r) => ({ runId, format, ...r })))
            .returning({ id: loadResults.id });
          stored = (stored ?? 0) + rows.length;
        }
        await markRunsWritten(tx, [runId]);
      });
      return stored;
    },

    /**
     * A file's points with their intervals, and its intervals added into the run's kept
     * slots: visible together or not at all. The intervals, then the slots they make, are
     * staged in pieces of STAGE_BYTES, each a statement of its own with `between()` awaited
     * after it, invisible to reads meanwhile (staged_result_uploads); the slots are merged
     * with no transaction open; a short final transaction checks that no other upload
     * changed the run's slots meanwhile (else the merge is done again), records the upload
     * and its points and makes it all visible. On the embedded database (one connection)
     * reads take their turn between the pieces. Null: the upload was stored before (nothing
     * stored). A refused or failed upload leaves nothing visible; its staged rows are removed.
     */
    async insertIntervalPoints(
      runId: string,
      format: ResultFormat,
      points: IntervalPointInsert[],
      upload?: ResultUpload,
      between: () => Promise<void> = yieldToLoop,
    ): Promise<number | null> {
      if (points.length === 0) return 0;
      const ids = await reserveResultIds(db, points.length);
      const stageId = ids[0] as number;
      await db.insert(stagedResultUploads).values({ runId, id: stageId, resultIds: ids });
      let visible = false;
      try {
        await ensureRunPartitions(db, [runId], ['load_intervals']);
        await stageIntervals(db, bulk, runId, ids, points, between);
        for (let attempt = 0; ; attempt++) {
          // After MERGE_ATTEMPTS merges that other uploads overtook, the merge is done under
          // the run's slot lock, in the final transaction (as slow as it is, but once).
          const locked = attempt >= MERGE_ATTEMPTS;
          const merged = locked ? null : await mergeUpload(db, runId, ids, points);
          if (merged) {
            await stageSlots(db, bulk, runId, stageId, merged.rows, between);
            await db
              .update(stagedResultUploads)
              .set({ replace: merged.replace })
              .where(
                and(eq(stagedResultUploads.runId, runId), eq(stagedResultUploads.id, stageId)),
              );
          }
          const outcome = await db.transaction(async (tx): Promise<FinalOutcome> => {
            // One upload at a time adds into a run's slots: none loses another's counts.
            await lockSlots(tx, runId);
            // An earlier upload's slots still being moved: they are moved first, so that a
            // start's slot is never visible twice over (its and this upload's).
            if (await slotsBeingMoved(tx, runId, stageId)) return 'pending';
            if (merged && !sameBasis(await slotBasis(tx, runId), merged.basis)) return 'moved';
            if (!(await claimUpload(tx, runId, upload))) return 'duplicate';
            await tx
              .insert(loadResults)
              .overridingSystemValue()
              .values(
                points.map((p, k) => ({
                  id: ids[k] as number,
                  runId,
                  format,
                  ...p.result,
                  generator: p.generator,
                  hdr: asBuffer(p.hdr),
                })),
              );
            // Visible once the staged upload's row goes (below): moved into load_slots after
            // the commit, a piece a statement (moveStagedSlots).
            if (merged) {
              if (merged.replace) await tx.delete(loadSlots).where(eq(loadSlots.runId, runId));
            } else {
              // Under the lock: this attempt's merge, written here; an earlier attempt's
              // staged slots must not become visible with the upload.
              await tx
                .delete(stagedLoadSlots)
                .where(and(eq(stagedLoadSlots.runId, runId), eq(stagedLoadSlots.stageId, stageId)));
              const inTx = await mergeUpload(tx, runId, ids, points);
              if (inTx.replace) await tx.delete(loadSlots).where(eq(loadSlots.runId, runId));
              await insertSlots(tx, inTx.rows);
            }
            await tx
              .delete(stagedResultUploads)
              .where(
                and(eq(stagedResultUploads.runId, runId), eq(stagedResultUploads.id, stageId)),
              );
            await markRunsWritten(tx, [runId]);
            return 'stored';
          });
          if (outcome === 'pending') {
            // Not a merge overtaken: the same merge is made visible once they are moved.
            await moveStagedSlots(db, runId, between);
            attempt--;
            continue;
          }
          if (outcome === 'moved') continue;
          if (outcome === 'duplicate') return null;
          visible = true;
          return points.length;
        }
      } finally {
        if (visible) await moveStagedSlots(db, runId, between);
        else await discardStagedUpload(db, runId, stageId, between);
      }
    },

    /**
     * Removes the uploads left staged by a process stopped while it stored them (staged more
     * than `olderThanMs` ago: 0 when no other process can be storing one); how many.
     */
    async discardStagedUploads(
      olderThanMs: number,
      between: () => Promise<void> = yieldToLoop,
    ): Promise<number> {
      const left = await db
        .select({ runId: stagedResultUploads.runId, id: stagedResultUploads.id })
        .from(stagedResultUploads)
        .where(
          sql`${stagedResultUploads.stagedAt} <= now() - ${olderThanMs} * interval '1 millisecond'`,
        );
      for (const { runId, id } of left) await discardStagedUpload(db, runId, id, between);
      // Slots of uploads made visible whose process stopped before it moved them (they are
      // visible where they are: moving them changes no read).
      const orphans = await db
        .selectDistinct({ runId: stagedLoadSlots.runId })
        .from(stagedLoadSlots)
        .where(
          sql`not exists (select 1 from staged_result_uploads u where u.run_id = ${stagedLoadSlots.runId} and u.id = ${stagedLoadSlots.stageId})`,
        );
      for (const o of orphans) await moveStagedSlots(db, o.runId, between);
      return left.length;
    },

    /**
     * A run's kept slots, if they hold every interval of the run (else null: the run's
     * intervals predate them), with its points' spans.
     */
    async slotsOfRun(
      runId: string,
      percentiles: number[],
    ): Promise<{ grid: SlotGrid; slots: Slot[]; spans: IntervalSpans } | null> {
      // The read of many runs, asked for one.
      return (await resultsOfRuns(db).slotsOfRun([runId], percentiles)).get(runId) ?? null;
    },

    /** Rebuilds a run's slots from its intervals (ones kept before slots were). */
    async rebuildSlots(runId: string): Promise<void> {
      await db.transaction(async (tx) => {
        await lockSlots(tx, runId);
        await rebuildSlots(tx, runId);
      });
    },

    /** The whole-step histograms of a run's points that have one (to merge generators). */
    async histogramsOfRun(runId: string): Promise<{ id: number; hdr: Uint8Array }[]> {
      const rows = await db
        .select({ id: loadResults.id, hdr: loadResults.hdr })
        .from(loadResults)
        .where(and(eq(loadResults.runId, runId), isNotNull(loadResults.hdr)))
        .orderBy(asc(loadResults.id));
      return rows.map((r) => ({ id: r.id, hdr: asBytes(r.hdr) }));
    },

    /** A run's intervals, each with its point's id, in time order. */
    intervalsOfRun(runId: string) {
      return intervalsOf(db, runId);
    },

    /** A run's points in import order, without their histograms; startedAt as epoch microseconds. */
    async ofRun(runId: string) {
      return db
        .select({
          ...listColumns,
          startedAtUs: sql<
            number | null
          >`(extract(epoch from ${loadResults.startedAt}) * 1000000)::float8`,
        })
        .from(loadResults)
        .where(eq(loadResults.runId, runId))
        .orderBy(asc(loadResults.id));
    },
  };
}

/**
 * The reads of `resultsRepository` that a runs list's headlines make, for many runs at once:
 * each one query (two for the slots), answered by run.
 */
export function resultsOfRuns(db: Db) {
  const byRun = <T extends { runId: string }>(rows: T[]) => groupRows(rows, (r) => r.runId);
  return {
    /** `ofRun` of each run. */
    async ofRun(runIds: string[]) {
      const rows = await db
        .select({
          ...listColumns,
          startedAtUs: sql<
            number | null
          >`(extract(epoch from ${loadResults.startedAt}) * 1000000)::float8`,
        })
        .from(loadResults)
        .where(inArray(loadResults.runId, runIds))
        .orderBy(asc(loadResults.id));
      return byRun(rows);
    },

    /** `histogramsOfRun` of each run. */
    async histogramsOfRun(runIds: string[]) {
      const rows = await db
        .select({ runId: loadResults.runId, id: loadResults.id, hdr: loadResults.hdr })
        .from(loadResults)
        .where(and(inArray(loadResults.runId, runIds), isNotNull(loadResults.hdr)))
        .orderBy(asc(loadResults.id));
      return new Map(
        [...byRun(rows)].map(([id, list]) => [
          id,
          list.map((r) => ({ id: r.id, hdr: asBytes(r.hdr) })),
        ]),
      );
    },

    /** `intervalsOfRun` of each run. */
    async intervalsOfRun(runIds: string[]) {
      const rows = await intervalRows(db, runIds);
      return new Map(
        [...byRun(rows)].map(([id, list]) => [id, list.map(({ runId: _runId, ...r }) => r)]),
      );
    },

    /** `slotsOfRun` of each run, with the same percentiles. */
    async slotsOfRun(
      runIds: string[],
      percentiles: number[],
    ): Promise<Map<string, { grid: SlotGrid; slots: Slot[]; spans: IntervalSpans } | null>> {
      const slots = visibleSlots(db, runIds);
      const { hdr: _hdr, ...withoutHdr } = slots._.selectedFields;
      const columns = keptAnswers(percentiles)
        ? { ...withoutHdr, hdr: sql<null>`null` }
        : slots._.selectedFields;
      const [rows, spanRows] = await Promise.all([
        db.select(columns).from(slots).orderBy(asc(slots.startMs)),
        db
          .select({
            runId: loadIntervals.runId,
            resultId: loadIntervals.resultId,
            fromMs: sql<number>`min(${loadIntervals.startMs})`,
            toMs: sql<number>`max(${loadIntervals.startMs} + ${loadIntervals.durationMs})`,
            n: sql<number>`count(*)::int`,
          })
          .from(loadIntervals)
          .where(visibleIntervals(runIds))
          .groupBy(loadIntervals.runId, loadIntervals.resultId),
      ]);
      const slotsBy = byRun(rows as ((typeof rows)[number] & { runId: string })[]);
      const spansBy = byRun(spanRows);
      return new Map(
        runIds.map((id) => [
          id,
          keptSlotsOfRun(
            (slotsBy.get(id) ?? []) as typeof rows,
            (spansBy.get(id) ?? []).map(({ runId: _runId, ...r }) => ({
              ...r,
              resultId: Number(r.resultId),
            })),
          ),
        ]),
      );
    },
  };
}
function lockSlots(tx: Tx, runId: string) {
  return tx.execute(
    sql`select pg_advisory_xact_lock(${String(lockKey(runId, 'slots', ''))}::int8)`,
  );
}

/** Rows of a staged upload written, or removed, by one statement: about this many bytes. */
const STAGE_BYTES = 256 * 1024;
/**
 * And at most this many rows moved by one statement in the database: the embedded database
 * runs a statement on the event loop, and a move of 1,000 slot rows held it 60-130 ms of CPU
 * (bench/upload-reads, 20,000 intervals).
 */
const STAGE_ROWS = 250;
/**
 * Rows a statement inserts that are built here: drizzle makes each row's parameters on the
 * event loop, and 1,000 interval rows (9,000 parameters) held it 110-250 ms (measured under
 * load 15, bench/upload-reads); 250 keep a statement's build in tens of ms.
 */
const INSERT_ROWS = 250;
/** Rows of a staged upload removed by one statement when it is refused (bounded pieces). */
const DISCARD_ROWS = 2000;
/** Merges done with no transaction open before one is done under the run's slot lock. */
const MERGE_ATTEMPTS = 3;

type FinalOutcome = 'stored' | 'duplicate' | 'moved' | 'pending';

/** `load_intervals` rows no staged upload holds (what every read of them sees). */
function visibleIntervals(runId: string | string[]) {
  return and(
    ofRuns(loadIntervals.runId, runId),
    typeof runId === 'string'
      ? sql`${loadIntervals.resultId} <> all(array(select unnest(result_ids) from staged_result_uploads where run_id = ${runId}))`
      : sql`${loadIntervals.resultId} <> all(array(select unnest(u.result_ids) from staged_result_uploads u where u.run_id = ${loadIntervals.runId}))`,
  );
}

/** A run's rows, or those of any of several runs. */
const ofRuns = (column: Column, runId: string | string[]) =>
  typeof runId === 'string' ? eq(column, runId) : inArray(column, runId);

/** `n` ids of load_results' identity, taken ahead of the points' insert (ascending). */
async function reserveResultIds(q: Db, n: number): Promise<number[]> {
  const result = await q.execute(
    sql`select nextval(pg_get_serial_sequence('load_results', 'id'))::float8 as id
      from generate_series(1, ${n}::int)`,
  );
  return rowsOf<{ id: unknown }>(result)
    .map((r) => Number(r.id))
    .sort((a, b) => a - b);
}

/** Rows cut in pieces of about STAGE_BYTES (by `bytes` of each) and at most INSERT_ROWS. */
function* pieces<T>(rows: Iterable<T>, bytes: (row: T) => number): Generator<T[]> {
  let piece: T[] = [];
  let size = 0;
  for (const row of rows) {
    piece.push(row);
    size += bytes(row);
    if (size >= STAGE_BYTES || piece.length >= INSERT_ROWS) {
      yield piece;
      piece = [];
      size = 0;
    }
  }
  if (piece.length > 0) yield piece;
}

/** An upload's intervals into load_intervals under its reserved ids, a piece a statement. */
async function stageIntervals(
  q: Db,
  bulk: BulkLoad | undefined,
  runId: string,
  ids: number[],
  points: IntervalPointInsert[],
  between: () => Promise<void>,
): Promise<void> {
  const rows = points.flatMap((p, k) =>
    p.intervals.map(
      (v): IntervalRow => ({
        resultId: ids[k] as number,
        startMs: v.startMs,
        durationMs: v.durationMs,
        count: v.count,
        errors: v.errors,
        minMs: v.minMs,
        maxMs: v.maxMs,
        hdr: v.hdr,
      }),
    ),
  );
  for (const piece of pieces(rows, (r) => r.hdr.length + 64)) {
    if (bulk)
      await bulk.copyThenCommit(
        'load_intervals',
        INTERVAL_COLUMNS,
        intervalCopyRows(runId, piece),
        {
          format: 'binary',
        },
      );
    else
      await q
        .insert(loadIntervals)
        .values(piece.map((r) => ({ runId, ...r, hdr: asBuffer(r.hdr) })));
    await between();
  }
}

/** Slot rows into staged_load_slots under the stage, a piece a statement (any earlier ones removed). */
async function stageSlots(
  q: Db,
  bulk: BulkLoad | undefined,
  runId: string,
  stageId: number,
  rows: SlotRow[],
  between: () => Promise<void>,
): Promise<void> {
  await discardStagedSlots(q, runId, stageId, between);
  for (const piece of pieces(rows, (r) => r.hdr.length + 256)) {
    if (bulk)
      await bulk.copyThenCommit(
        'staged_load_slots',
        STAGED_SLOT_COLUMNS,
        stagedSlotCopyRows(runId, stageId, piece),
        { format: 'binary' },
      );
    else await q.insert(stagedLoadSlots).values(piece.map((r) => ({ ...r, stageId })));
    await between();
  }
}

const SLOT_COLUMNS = `start_ms, interval_ms, unit, duration_ms, requests, errors, generators,
  min_ms, max_ms, rounding_ms, percentiles, hdr`;

/** A stage's slots are visible once its upload is (its staged_result_uploads row gone). */
const MADE_VISIBLE = `not exists (select 1 from staged_result_uploads u
  where u.run_id = s.run_id and u.id = s.stage_id)`;

/**
 * A run's slots as every read sees them: its kept slots, each in place of which an upload
 * made visible but whose slots are still being moved in (moveStagedSlots) has one, and those.
 */
function visibleSlots(q: Db | Tx, runId: string | string[]) {
  const kept = getTableColumns(loadSlots);
  const { stageId: _stageId, ...staged } = getTableColumns(stagedLoadSlots);
  return q
    .select(kept)
    .from(loadSlots)
    .where(
      and(
        ofRuns(loadSlots.runId, runId),
        sql`not exists (select 1 from staged_load_slots s where s.run_id = ${loadSlots.runId}
          and s.start_ms = ${loadSlots.startMs} and ${sql.raw(MADE_VISIBLE)})`,
      ),
    )
    .unionAll(
      q
        .select(staged)
        .from(stagedLoadSlots)
        .where(
          and(
            ofRuns(stagedLoadSlots.runId, runId),
            sql`not exists (select 1 from staged_result_uploads u
              where u.run_id = ${stagedLoadSlots.runId} and u.id = ${stagedLoadSlots.stageId})`,
          ),
        ),
    )
    .as('visible_slots');
}

/** Whether slots of another upload of the run, made visible, are still being moved in. */
async function slotsBeingMoved(tx: Tx, runId: string, stageId: number): Promise<boolean> {
  const result = await tx.execute(
    sql`select exists (select 1 from staged_load_slots s where s.run_id = ${runId}
      and s.stage_id <> ${stageId} and ${sql.raw(MADE_VISIBLE)}) as pending`,
  );
  return rowsOf<{ pending: boolean }>(result)[0]?.pending === true;
}

/**
 * Moves the run's slots of uploads made visible into load_slots, STAGE_ROWS a statement with
 * `between()` after each: each statement deletes its rows from staged_load_slots and writes
 * them into load_slots at once, so every read sees each slot once, before or after. Another
 * process moving the same rows moves each only once (the delete takes it).
 */
async function moveStagedSlots(q: Db, runId: string, between: () => Promise<void>) {
  for (;;) {
    const result = await q.execute(
      sql`with moved as (delete from staged_load_slots where run_id = ${runId} and ctid = any(array(
          select s.ctid from staged_load_slots s where s.run_id = ${runId}
            and ${sql.raw(MADE_VISIBLE)} limit ${STAGE_ROWS}))
          returning run_id, ${sql.raw(SLOT_COLUMNS)}),
        stored as (insert into load_slots (run_id, ${sql.raw(SLOT_COLUMNS)})
          select run_id, ${sql.raw(SLOT_COLUMNS)} from moved
          on conflict (run_id, start_ms) do update set
            interval_ms = excluded.interval_ms, unit = excluded.unit,
            duration_ms = excluded.duration_ms, requests = excluded.requests,
            errors = excluded.errors, generators = excluded.generators,
            min_ms = excluded.min_ms, max_ms = excluded.max_ms,
            rounding_ms = excluded.rounding_ms, percentiles = excluded.percentiles,
            hdr = excluded.hdr
          returning 1)
        select count(*)::int as n from stored`,
    );
    if (Number(rowsOf<{ n: unknown }>(result)[0]?.n ?? 0) === 0) return;
    await between();
  }
}

/**
 * Deletes `table`'s rows `where`, DISCARD_ROWS a statement with `between()` after each. The
 * delete repeats `where` (which names the run) beside the ctids: load_intervals is partitioned
 * by run (0031) and a ctid is unique only within one partition.
 */
async function deleteInPieces(
  q: Db,
  table: string,
  where: ReturnType<typeof sql>,
  between: () => Promise<void>,
): Promise<void> {
  for (;;) {
    const result = await q.execute(
      sql`with removed as (delete from ${sql.raw(table)} where ${where} and ctid = any(array(
          select ctid from ${sql.raw(table)} where ${where} limit ${DISCARD_ROWS}))
          returning 1)
        select count(*)::int as n from removed`,
    );
    if (Number(rowsOf<{ n: unknown }>(result)[0]?.n ?? 0) === 0) return;
    await between();
  }
}

function discardStagedSlots(q: Db, runId: string, stageId: number, between: () => Promise<void>) {
  return deleteInPieces(
    q,
    'staged_load_slots',
    sql`run_id = ${runId} and stage_id = ${stageId}`,
    between,
  );
}

/**
 * Removes a staged upload's intervals and slots in pieces, then its row (its intervals stay
 * invisible until they are all gone). Nothing is left visible by it at any point.
 */
async function discardStagedUpload(
  q: Db,
  runId: string,
  stageId: number,
  between: () => Promise<void>,
): Promise<void> {
  const [row] = await q
    .select({ resultIds: stagedResultUploads.resultIds })
    .from(stagedResultUploads)
    .where(and(eq(stagedResultUploads.runId, runId), eq(stagedResultUploads.id, stageId)));
  if (!row) return;
  await deleteInPieces(
    q,
    'load_intervals',
    sql`run_id = ${runId} and result_id = any(${`{${row.resultIds.join(',')}}`}::int8[])`,
    between,
  );
  await discardStagedSlots(q, runId, stageId, between);
  await q
    .delete(stagedResultUploads)
    .where(and(eq(stagedResultUploads.runId, runId), eq(stagedResultUploads.id, stageId)));
}

/**
 * What a merge of an upload into the run's slots starts from: the run's visible intervals
 * and its kept slots' grid and intervals. An upload made visible meanwhile changes it.
 */
async function slotBasis(q: Db | Tx, runId: string): Promise<SlotBasis> {
  const [counted] = await q
    .select({ n: sql<number>`count(*)::int` })
    .from(loadIntervals)
    .where(visibleIntervals(runId));
  const kept = visibleSlots(q, runId);
  const [keptRow] = await q
    .select({
      intervalMs: sql<number | null>`min(${kept.intervalMs})`,
      grids: sql<number>`count(distinct (${kept.intervalMs}, ${kept.unit}))::int`,
      unit: sql<string | null>`min(${kept.unit})`,
      intervals: sql<number>`coalesce(sum(${kept.generators}), 0)::int`,
      slots: sql<number>`count(*)::int`,
    })
    .from(kept);
  return {
    earlier: Number(counted?.n ?? 0),
    intervalMs: keptRow?.intervalMs === null ? null : Number(keptRow?.intervalMs),
    grids: Number(keptRow?.grids ?? 0),
    unit: keptRow?.unit ?? null,
    intervals: Number(keptRow?.intervals ?? 0),
    slots: Number(keptRow?.slots ?? 0),
  };
}
/** A slot's row in the run (its histogram as the driver writes bytea). */
const slotRow = (runId: string, r: SlotRecord): SlotRow => ({ runId, ...r, hdr: asBuffer(r.hdr) });

/** The rows of slots merged on `grid`, one step a slot (runSliced between the loop's turns). */
function* slotRows(runId: string, grid: SlotGrid, slots: Slot[]): Generator<void, SlotRow[]> {
  const records = yield* slotRecords(grid, slots);
  return records.map((r) => slotRow(runId, r));
}

async function insertSlots(tx: Tx, rows: SlotRow[]) {
  for (let i = 0; i < rows.length; i += 500) {
    await tx
      .insert(loadSlots)
      .values(rows.slice(i, i + 500))
      .onConflictDoUpdate({
        target: [loadSlots.runId, loadSlots.startMs],
        set: {
          intervalMs: sql`excluded.interval_ms`,
          unit: sql`excluded.unit`,
          durationMs: sql`excluded.duration_ms`,
          requests: sql`excluded.requests`,
          errors: sql`excluded.errors`,
          generators: sql`excluded.generators`,
          minMs: sql`excluded.min_ms`,
          maxMs: sql`excluded.max_ms`,
          roundingMs: sql`excluded.rounding_ms`,
          percentiles: sql`excluded.percentiles`,
          hdr: sql`excluded.hdr`,
        },
      });
  }
}

/** The run's grid with an upload's points (every interval's length, every point's unit). */
async function gridOf(q: Db | Tx, runId: string, adding: IntervalPointInsert[]): Promise<SlotGrid> {
  const lengths = await q
    .select({ durationMs: loadIntervals.durationMs, n: sql<number>`count(*)::int` })
    .from(loadIntervals)
    .where(visibleIntervals(runId))
    .groupBy(loadIntervals.durationMs);
  const units = await q
    .select({ labels: loadResults.labels })
    .from(loadResults)
    .where(and(eq(loadResults.runId, runId), isNotNull(loadResults.hdr)));
  return gridWithUpload(
    lengths.map((l) => ({ durationMs: l.durationMs, n: Number(l.n) })),
    units,
    uploadPoints(adding),
  );
}

/** An upload's points as the slot maths reads them. */
const uploadPoints = (points: IntervalPointInsert[]) =>
  points.map((p) => ({ labels: p.result.labels, intervals: p.intervals }));

/**
 * An upload's intervals (its points under `ids`) merged into the run's kept slots, in
 * slices with the event loop running between them (20,000 intervals take seconds): the
 * slot rows it changes, or every slot of the run (`replace`) when they must be rebuilt, and
 * the basis it merged on. With `q` a database (no transaction open), the caller checks the
 * basis again under the run's slot lock before it writes the rows.
 */
async function mergeUpload(
  q: Db | Tx,
  runId: string,
  ids: number[],
  points: IntervalPointInsert[],
): Promise<{ basis: SlotBasis; rows: SlotRow[]; replace: boolean }> {
  const basis = await slotBasis(q, runId);
  const grid = await gridOf(q, runId, points);
  const starts = slotStartsOf(uploadPoints(points), grid.intervalMs);
  const slots = new Map<number, Slot>();
  // INSERT_ROWS starts a statement (drizzle makes each parameter on the event loop), with
  // the event loop let run between them: the embedded database answers in microtasks, so
  // awaiting its statements alone never lets a read in (20 statements of 1,000 starts held
  // it up to 0.9 s under load).
  for (let i = 0; i < starts.length; i += INSERT_ROWS) {
    const kept = visibleSlots(q, runId);
    const rows = await q
      .select()
      .from(kept)
      .where(inArray(kept.startMs, starts.slice(i, i + INSERT_ROWS)));
    for (const r of rows) slots.set(r.startMs, slotOfRecord(r));
    await yieldToLoop();
  }
  // Each slot made into its row as soon as it is whole: its counts go (bounded memory).
  const changed = await runSliced(
    addUploadFinishing(
      keptSlotsOf(basis),
      basis.earlier,
      grid,
      slots,
      uploadPoints(points),
      (slot) => slotRow(runId, slotRecord(grid, slot)),
    ),
  );
  if (changed !== null) return { basis, rows: changed, replace: false };
  // Every slot again, from the run's visible intervals and the upload's.
  const earlierPoints = await q
    .select({ id: loadResults.id, labels: loadResults.labels })
    .from(loadResults)
    .where(and(eq(loadResults.runId, runId), isNotNull(loadResults.hdr)));
  const intervals = intervalsWithUpload(await intervalsOf(q, runId), uploadPoints(points), ids);
  const rebuilt = buildSlots(
    [
      ...earlierPoints,
      ...points.map((p, k) => ({ id: ids[k] as number, labels: p.result.labels })),
    ],
    intervals,
  );
  return {
    basis,
    rows: await runSliced(slotRows(runId, rebuilt.grid, rebuilt.slots)),
    replace: true,
  };
}

/** A run's intervals, each with its point's id, in time order (counts as numbers). */
async function intervalsOf(q: Db | Tx, runId: string) {
  return (await intervalRows(q, runId)).map(({ runId: _runId, ...r }) => r);
}

/** The intervals of a run, or of several, each with its run and its point's id, in time order. */
async function intervalRows(q: Db | Tx, runId: string | string[]) {
  const rows = await q
    .select({
      runId: loadIntervals.runId,
      resultId: loadIntervals.resultId,
      startMs: loadIntervals.startMs,
      durationMs: loadIntervals.durationMs,
      count: loadIntervals.count,
      errors: loadIntervals.errors,
      hdr: loadIntervals.hdr,
    })
    .from(loadIntervals)
    .where(visibleIntervals(runId))
    .orderBy(asc(loadIntervals.startMs), asc(loadIntervals.resultId));
  return rows.map((r) => ({ ...r, count: Number(r.count), hdr: asBytes(r.hdr) }));
}

/** Every slot of the run from its intervals, as the view would merge them on read. */
async function rebuildSlots(tx: Tx, runId: string): Promise<void> {
  const points = await tx
    .select({ id: loadResults.id, labels: loadResults.labels })
    .from(loadResults)
    .where(and(eq(loadResults.runId, runId), isNotNull(loadResults.hdr)));
  const { grid, slots } = buildSlots(points, await intervalsOf(tx, runId));
  await tx.delete(loadSlots).where(eq(loadSlots.runId, runId));
  // Slots of uploads made visible and not yet moved in: the rebuild holds them already.
  await tx.execute(
    sql`delete from staged_load_slots s where s.run_id = ${runId} and ${sql.raw(MADE_VISIBLE)}`,
  );
  await insertSlots(
    tx,
    slots.map((s) => slotRow(runId, slotRecord(grid, s))),
  );
}

export type ResultsRepository = ReturnType<typeof resultsRepository>;
