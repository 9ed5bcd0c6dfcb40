// Load results in Postgres.
import { type Db, tables } from '@meshbench/db';
import type { LoadResult, ResultFormat, StagePercentile } from '@meshbench/schema';
import { and, asc, eq, getTableColumns, inArray, isNotNull, sql } from 'drizzle-orm';
import { decodeHdr, encodePlain } from '../domain/hdr.ts';
import {
  addUploadSteps,
  buildSlots,
  HdrMerger,
  type IntervalSpans,
  KEPT_SLOT_PERCENTILES,
  type KeptSlots,
  keptAnswers,
  type Slot,
  type SlotGrid,
  slotGrid,
  slotStart,
  unitOf,
} from '../domain/load-steps.ts';
import { runSliced } from '../domain/slices.ts';
import { lockKey } from './events.repository.ts';
import { markRunsWritten } from './run-facts.repository.ts';

const { loadResults, loadIntervals, loadSlots, resultUploads } = tables;

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
  intervals: {
    startMs: number;
    durationMs: number;
    count: number;
    errors: number | null;
    minMs: number | null;
    maxMs: number | null;
    hdr: Uint8Array;
  }[];
}

const asBuffer = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
/** bytea as node-postgres (Buffer) and PGlite (Uint8Array) give it. */
const asBytes = (v: unknown): Uint8Array => v as Uint8Array;

// Every column but the whole-step histogram: the results list does not carry it.
const { hdr: _hdr, ...listColumns } = getTableColumns(loadResults);

export function resultsRepository(db: Db) {
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
     * One transaction: each step's point, then its intervals under the point's id; a file's
     * points and intervals are stored together or not at all.
     */
    async insertIntervalPoints(
      runId: string,
      format: ResultFormat,
      points: IntervalPointInsert[],
      upload?: ResultUpload,
    ): Promise<number | null> {
      if (points.length === 0) return 0;
      let duplicate = false;
      await db.transaction(async (tx) => {
        if (!(await claimUpload(tx, runId, upload))) {
          duplicate = true;
          return;
        }
        // One upload at a time adds into a run's slots: none loses another's counts.
        await lockSlots(tx, runId);
        const earlier = await intervalCount(tx, runId);
        for (const p of points) {
          const [row] = await tx
            .insert(loadResults)
            .values({ runId, format, ...p.result, generator: p.generator, hdr: asBuffer(p.hdr) })
            .returning({ id: loadResults.id });
          const resultId = (row as { id: number }).id;
          for (let i = 0; i < p.intervals.length; i += 1000) {
            await tx.insert(loadIntervals).values(
              p.intervals.slice(i, i + 1000).map((v) => ({
                runId,
                resultId,
                startMs: v.startMs,
                durationMs: v.durationMs,
                count: v.count,
                errors: v.errors,
                minMs: v.minMs,
                maxMs: v.maxMs,
                hdr: asBuffer(v.hdr),
              })),
            );
          }
        }
        await addToSlots(tx, runId, earlier, points);
        await markRunsWritten(tx, [runId]);
      });
      return duplicate ? null : points.length;
    },

    /**
     * A run's kept slots, if they hold every interval of the run (else null: the run's
     * intervals predate them), with its points' spans.
     */
    async slotsOfRun(
      runId: string,
      percentiles: number[],
    ): Promise<{ grid: SlotGrid; slots: Slot[]; spans: IntervalSpans } | null> {
      // The histograms only when the kept percentiles do not answer.
      const { hdr: _hdr, ...withoutHdr } = getTableColumns(loadSlots);
      const columns = keptAnswers(percentiles)
        ? { ...withoutHdr, hdr: sql<null>`null` }
        : getTableColumns(loadSlots);
      const [rows, spanRows] = await Promise.all([
        db
          .select(columns)
          .from(loadSlots)
          .where(eq(loadSlots.runId, runId))
          .orderBy(asc(loadSlots.startMs)),
        db
          .select({
            resultId: loadIntervals.resultId,
            fromMs: sql<number>`min(${loadIntervals.startMs})`,
            toMs: sql<number>`max(${loadIntervals.startMs} + ${loadIntervals.durationMs})`,
            n: sql<number>`count(*)::int`,
          })
          .from(loadIntervals)
          .where(eq(loadIntervals.runId, runId))
          .groupBy(loadIntervals.resultId),
      ]);
      const merged = rows.reduce((n, r) => n + r.generators, 0);
      const intervals = spanRows.reduce((n, r) => n + Number(r.n), 0);
      const first = rows[0];
      if (merged !== intervals || (first && rows.some((r) => !sameGrid(r, first)))) return null;
      const spans: IntervalSpans = new Map(
        spanRows.map((r) => [
          Number(r.resultId),
          { fromMs: Number(r.fromMs), toMs: Number(r.toMs) },
        ]),
      );
      const grid: SlotGrid = first
        ? { intervalMs: first.intervalMs, unit: unitOf({ hdrUnit: first.unit }) }
        : { intervalMs: 0, unit: 'us' };
      return { grid, slots: rows.map(slotOf), spans };
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
const sameGrid = (
  a: Pick<SlotRow, 'intervalMs' | 'unit'>,
  b: Pick<SlotRow, 'intervalMs' | 'unit'>,
) => a.intervalMs === b.intervalMs && a.unit === b.unit;

function lockSlots(tx: Tx, runId: string) {
  return tx.execute(
    sql`select pg_advisory_xact_lock(${String(lockKey(runId, 'slots', ''))}::int8)`,
  );
}

async function intervalCount(tx: Tx, runId: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(loadIntervals)
    .where(eq(loadIntervals.runId, runId));
  return Number(row?.n ?? 0);
}

const slotOf = (r: Omit<SlotRow, 'hdr'> & { hdr: unknown }): Slot => {
  const unit = unitOf({ hdrUnit: r.unit });
  return {
    startMs: r.startMs,
    durationMs: r.durationMs,
    requests: Number(r.requests),
    errors: r.errors === null ? null : Number(r.errors),
    generators: r.generators,
    merger: HdrMerger.of(unit, r.hdr === null ? null : decodeHdr(asBytes(r.hdr)), r.roundingMs),
    kept: r.percentiles as StagePercentile[],
  };
};

function slotRow(runId: string, grid: SlotGrid, s: Slot): SlotRow {
  const counts = s.merger.counts;
  if (!counts) throw new Error('a slot without a histogram');
  const { min, max } = s.merger.range();
  return {
    runId,
    startMs: s.startMs,
    intervalMs: grid.intervalMs,
    unit: grid.unit,
    durationMs: s.durationMs,
    requests: s.requests,
    errors: s.errors,
    generators: s.generators,
    minMs: min,
    maxMs: max,
    roundingMs: s.merger.rounding,
    percentiles: s.merger.percentiles(KEPT_SLOT_PERCENTILES),
    hdr: asBuffer(encodePlain(counts)),
  };
}

/** slotRow of each slot, one step a slot. */
function* slotRows(runId: string, grid: SlotGrid, slots: Slot[]): Generator<void, SlotRow[]> {
  const rows: SlotRow[] = [];
  for (const s of slots) {
    rows.push(slotRow(runId, grid, s));
    yield;
  }
  return rows;
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

/** The run's grid now (every interval's length, every point's unit). */
async function gridOf(tx: Tx, runId: string): Promise<SlotGrid> {
  const lengths = await tx
    .select({ durationMs: loadIntervals.durationMs, n: sql<number>`count(*)::int` })
    .from(loadIntervals)
    .where(eq(loadIntervals.runId, runId))
    .groupBy(loadIntervals.durationMs);
  const units = await tx
    .select({ labels: loadResults.labels })
    .from(loadResults)
    .where(and(eq(loadResults.runId, runId), isNotNull(loadResults.hdr)));
  return slotGrid(
    lengths.map((l) => ({ durationMs: l.durationMs, n: Number(l.n) })),
    units,
  );
}

/** An upload's intervals into the run's slots (under the run's slot lock). */
async function addToSlots(
  tx: Tx,
  runId: string,
  earlier: number,
  points: IntervalPointInsert[],
): Promise<void> {
  const grid = await gridOf(tx, runId);
  const [keptRow] = await tx
    .select({
      intervalMs: sql<number | null>`min(${loadSlots.intervalMs})`,
      grids: sql<number>`count(distinct (${loadSlots.intervalMs}, ${loadSlots.unit}))::int`,
      unit: sql<string | null>`min(${loadSlots.unit})`,
      intervals: sql<number>`coalesce(sum(${loadSlots.generators}), 0)::int`,
    })
    .from(loadSlots)
    .where(eq(loadSlots.runId, runId));
  const kept: KeptSlots = {
    grid:
      keptRow?.intervalMs === null || keptRow?.intervalMs === undefined
        ? null
        : { intervalMs: Number(keptRow.intervalMs), unit: unitOf({ hdrUnit: keptRow.unit ?? '' }) },
    intervals: Number(keptRow?.grids ?? 0) > 1 ? -1 : Number(keptRow?.intervals ?? 0),
  };
  const starts = [
    ...new Set(
      points.flatMap((p) => p.intervals.map((i) => slotStart(i.startMs, grid.intervalMs))),
    ),
  ];
  const slots = new Map<number, Slot>();
  for (let i = 0; i < starts.length; i += 1000) {
    const rows = await tx
      .select()
      .from(loadSlots)
      .where(
        and(eq(loadSlots.runId, runId), inArray(loadSlots.startMs, starts.slice(i, i + 1000))),
      );
    for (const r of rows) slots.set(r.startMs, slotOf(r));
  }
  // Merged in slices, the event loop running between them: 20,000 intervals take seconds.
  const changed = await runSliced(
    addUploadSteps(
      kept,
      earlier,
      grid,
      slots,
      points.map((p) => ({ labels: p.result.labels, intervals: p.intervals })),
    ),
  );
  if (changed === null) await rebuildSlots(tx, runId);
  else await insertSlots(tx, await runSliced(slotRows(runId, grid, changed)));
}

/** A run's intervals, each with its point's id, in time order (counts as numbers). */
async function intervalsOf(q: Db | Tx, runId: string) {
  const rows = await q
    .select({
      resultId: loadIntervals.resultId,
      startMs: loadIntervals.startMs,
      durationMs: loadIntervals.durationMs,
      count: loadIntervals.count,
      errors: loadIntervals.errors,
      hdr: loadIntervals.hdr,
    })
    .from(loadIntervals)
    .where(eq(loadIntervals.runId, runId))
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
  await insertSlots(
    tx,
    slots.map((s) => slotRow(runId, grid, s)),
  );
}

export type ResultsRepository = ReturnType<typeof resultsRepository>;
