// A run's own partitions of the raw tables (migrations 0031 and 0032, docs/scale.md,
// Partitions): made at the run's first write to a table; emptying them is a partition
// operation, where a run stored before 0031 (in the shared `<table>_until_0031` partition) or
// one that never wrote to the table is emptied by `DELETE ... WHERE run_id`. Dropping one takes
// ACCESS EXCLUSIVE on the parent, so the transactions that drop or truncate them wait for locks
// briefly and start again (lockRetried): one waiting behind a long read never holds every
// other read and write of the table in the queue behind it.

import { setTimeout as sleep } from 'node:timers/promises';
import { type Db, RUN_PARTITIONED_TABLES, runPartitionName } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { AppError } from '../errors.ts';
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

/**
 * Makes the runs' own partitions of `tables` that they lack (`meshbench_run_partition`,
 * migration 0032), before the first write of a run to a table. A run that is gone gets none.
 * Given a transaction, the partitions are made in it and the parents' SHARE UPDATE EXCLUSIVE
 * lock is held until it ends: other runs' first writes to those tables wait that long. Tables
 * are taken in one order (RUN_PARTITIONED_TABLES'), so two writers never wait on each other
 * crosswise.
 */
export async function ensureRunPartitions(
  q: Db,
  runIds: readonly string[],
  tables: readonly string[],
): Promise<void> {
  const ordered = RUN_PARTITIONED_TABLES.filter((t) => tables.includes(t));
  const runs = [...new Set(runIds)].sort();
  if (ordered.length === 0 || runs.length === 0) return;
  await q.execute(sql`select meshbench_run_partition(r, t)
    from unnest(${sql.param(ordered)}::text[]) with ordinality as p(t, i),
      unnest(${sql.param(runs)}::uuid[]) as r
    order by p.i, r`);
}

/** How long a statement of a lockRetried transaction waits for a lock before starting again. */
export const LOCK_WAIT_MS = 200;
/** How long lockRetried keeps starting again before it gives up (the lock error thrown). */
export const LOCK_RETRY_BUDGET_MS = 30_000;

/** SQLSTATE lock_not_available: a lock not had within lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** The SQLSTATE of a database error, through drizzle's wrapping (`cause`). */
function sqlStateOf(error: unknown): string | undefined {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Runs `work` in a transaction whose statements wait at most `waitMs` for a lock; when one
 * waits longer the whole transaction is rolled back (its locks released, so that whatever
 * queued behind it runs) and started again after a pause. Past `budgetMs`: a 503 naming
 * `what` (the lock error its cause).
 */
export async function lockRetried<T>(
  db: Db,
  what: string,
  work: (tx: Db) => Promise<T>,
  { waitMs = LOCK_WAIT_MS, budgetMs = LOCK_RETRY_BUDGET_MS } = {},
): Promise<T> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        await tx.execute(
          sql.raw(`set local lock_timeout = '${Math.max(1, Math.round(waitMs))}ms'`),
        );
        return work(tx);
      });
    } catch (error) {
      if (sqlStateOf(error) !== LOCK_NOT_AVAILABLE) throw error;
      if (performance.now() - started >= budgetMs) {
        const busy = new AppError(
          503,
          'locked',
          `${what} is held by other statements (a long read); try again in a moment`,
        );
        busy.retryAfterS = 5;
        busy.cause = error;
        throw busy;
      }
      // Paused longer each time (to a second), with jitter: not in step with another waiter.
      await sleep(Math.min(1000, waitMs * 2 ** attempt) * (0.5 + Math.random() / 2));
    }
  }
}
