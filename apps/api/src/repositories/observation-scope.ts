// Observations carry no index on their run: a BRIN on batch_id finds a run's rows, because
// batches take ever larger ids and COPY appends. Every read of a run's observations names
// the range of its batches, so the index can skip the rest of the table.
import { type Database, isUuid, type Tx } from '@meshbench/db';
import { type SQL, sql } from 'drizzle-orm';

/** `batch_id` (of `alias`, if given) within the run's first and last batch. */
export function inRunBatches(runId: string, alias?: string): SQL {
  const column = sql.raw(alias ? `${alias}.batch_id` : 'batch_id');
  return sql`${column} between (select min(id) from event_batches where run_id = ${runId})
    and (select max(id) from event_batches where run_id = ${runId})
    and ${column} <> all(array(select id from staged_event_batches where run_id = ${runId}))`;
}

/** The same range as SQL text for a statement that takes no parameters (DECLARE). */
export function inRunBatchesText(runUuid: string, alias?: string): string {
  if (!isUuid(runUuid)) {
    throw new Error(`not a run id: ${runUuid}`);
  }
  const column = alias ? `${alias}.batch_id` : 'batch_id';
  return `${column} between (select min(id) from event_batches where run_id = '${runUuid}'::uuid)
    and (select max(id) from event_batches where run_id = '${runUuid}'::uuid)
    and ${column} <> all(array(select id from staged_event_batches where run_id = '${runUuid}'::uuid))`;
}

/**
 * Tells the planner, for the rest of `tx`, what reads of a run's observations need: the
 * BRIN over its batch range, and hash joins. Until ANALYZE has seen a load (autovacuum may
 * be off, and PGlite never runs it) Postgres plans blind: it would scan the whole table,
 * or loop over a join row by row, hours at a few million rows.
 */
export async function planForObservations(tx: Tx): Promise<void> {
  await tx.db.execute(sql.raw('set local enable_seqscan to off'));
  await tx.db.execute(sql.raw('set local enable_nestloop to off'));
  await tx.db.execute(sql.raw("set local work_mem to '128MB'"));
}

/** `read` in a transaction planned by planForObservations. */
export function readObservations<T>(database: Database, read: (tx: Tx) => Promise<T>): Promise<T> {
  return database.transaction(async (tx) => {
    await planForObservations(tx);
    return read(tx);
  });
}
