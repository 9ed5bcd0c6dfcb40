// A run's own partitions of the raw tables (migration 0031, docs/scale.md, Partitions):
// emptying them is a partition operation, where a run stored before 0031 (in the shared
// `<table>_until_0031` partition) is emptied by `DELETE ... WHERE run_id`.
import { type Db, RUN_PARTITIONED_TABLES, runPartitionName } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { rowsOf } from './result-rows.ts';

/** Whether `table` is list-partitioned by run. */
export function partitionedByRun(table: string): boolean {
  return RUN_PARTITIONED_TABLES.includes(table);
}

/** The run's own partition of `table`, or undefined when it has none (stored before 0031). */
async function ownPartition(q: Db, table: string, runId: string): Promise<string | undefined> {
  const name = runPartitionName(table, runId);
  const [row] = rowsOf<{ found: boolean }>(
    await q.execute(sql`select to_regclass(${`"${name}"`}) is not null as found`),
  );
  return row?.found === true ? name : undefined;
}

/**
 * Removes every row of the run from `table` and returns how many: its own partition
 * truncated (`truncate`, kept for writes to come) or dropped (`drop`, when the run goes),
 * else a `DELETE ... WHERE run_id` (pruned to the partition holding it).
 */
export async function emptyRunRows(
  q: Db,
  table: string,
  runId: string,
  how: 'truncate' | 'drop',
): Promise<number> {
  const own = partitionedByRun(table) ? await ownPartition(q, table, runId) : undefined;
  if (own === undefined) {
    const [counted] = rowsOf<{ n: unknown }>(
      await q.execute(sql`
        with gone as (delete from ${sql.identifier(table)} where run_id = ${runId} returning 1)
        select count(*)::int8 as n from gone`),
    );
    return Number(counted?.n ?? 0);
  }
  const [counted] = rowsOf<{ n: unknown }>(
    await q.execute(sql`select count(*)::int8 as n from ${sql.identifier(own)}`),
  );
  await q.execute(
    how === 'drop' ? sql`drop table ${sql.identifier(own)}` : sql`truncate ${sql.identifier(own)}`,
  );
  return Number(counted?.n ?? 0);
}
