// Load results in Postgres.
import { type Db, tables } from '@meshbench/db';
import type { LoadResult, ResultFormat } from '@meshbench/schema';
import { and, asc, eq, getTableColumns, isNotNull, sql } from 'drizzle-orm';

const { loadResults, loadIntervals } = tables;
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
    /** One statement: a file's points are stored together or not at all. */
    async insert(runId: string, format: ResultFormat, results: LoadResult[]): Promise<number> {
      if (results.length === 0) return 0;
      let stored = 0;
      await db.transaction(async (tx) => {
        for (let i = 0; i < results.length; i += 500) {
          const rows = await tx
            .insert(loadResults)
            .values(results.slice(i, i + 500).map((r) => ({ runId, format, ...r })))
            .returning({ id: loadResults.id });
          stored += rows.length;
        }
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
    ): Promise<number> {
      if (points.length === 0) return 0;
      await db.transaction(async (tx) => {
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
      });
      return points.length;
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
    async intervalsOfRun(runId: string) {
      const rows = await db
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
export type ResultsRepository = ReturnType<typeof resultsRepository>;
