// Load results in Postgres.
import { type Db, tables } from '@meshbench/db';
import type { LoadResult, ResultFormat } from '@meshbench/schema';
import { asc, eq, getTableColumns, sql } from 'drizzle-orm';

const { loadResults } = tables;
export type LoadResultRow = typeof loadResults.$inferSelect;

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

    /** A run's points in import order; startedAt as epoch microseconds. */
    async ofRun(runId: string) {
      return db
        .select({
          ...getTableColumns(loadResults),
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
