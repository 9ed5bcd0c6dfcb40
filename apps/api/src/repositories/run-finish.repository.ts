// The state of finishing each run (run_finishes): the next step to do, and its last failure.
// Steps move on only from the step the caller did, so a finish begun again (a second PATCH)
// is not moved past by a slower one still running.
import { type Db, tables } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { rowsOf } from './result-rows.ts';

const { runFinishes } = tables;

export interface FinishState {
  step: string | null;
  failures: number;
  failedAt: Date | null;
  error: string | null;
}

/** Longest error text kept: enough to find it in the logs, not a stack. */
const ERROR_CHARS = 500;

/** Finishing begins (again) at `step`: every step from it is undone. In the run's finish transaction. */
export async function beginFinish(
  db: Pick<Db, 'insert'>,
  runId: string,
  step: string,
): Promise<void> {
  await db
    .insert(runFinishes)
    .values({ runId, step })
    .onConflictDoUpdate({
      target: runFinishes.runId,
      set: { step, failures: 0, failedAt: null, error: null, updatedAt: sql`now()` },
    });
}

export function runFinishRepository(db: Db) {
  return {
    /** `done` is done: `next` is the next step (null: finishing is complete). */
    async advance(runId: string, done: string, next: string | null): Promise<void> {
      await db.execute(sql`
        update run_finishes
           set step = ${next}, failures = 0, failed_at = null, error = null, updated_at = now()
         where run_id = ${runId} and step = ${done}`);
    },

    /** `step` failed: counted and kept, the step still the next. */
    async failed(runId: string, step: string, error: string): Promise<void> {
      await db.execute(sql`
        update run_finishes
           set failures = failures + 1, failed_at = now(), error = ${error.slice(0, ERROR_CHARS)},
               updated_at = now()
         where run_id = ${runId} and step = ${step}`);
    },

    /** The run's finish state; undefined for a run never finished (or finished before it was kept). */
    async of(runId: string): Promise<FinishState | undefined> {
      const result = await db.execute(sql`
        select step, failures, failed_at, error from run_finishes where run_id = ${runId}`);
      const [r] = rowsOf<{
        step: string | null;
        failures: number;
        failed_at: Date | string | null;
        error: string | null;
      }>(result);
      if (!r) return undefined;
      return {
        step: r.step,
        failures: Number(r.failures),
        failedAt: r.failed_at === null ? null : new Date(r.failed_at),
        error: r.error,
      };
    },

    /**
     * Runs whose finish has a step undone and did not move for `settledMs` (a finish in
     * progress is left to itself), the longest waiting first.
     */
    async unfinished(limit: number, settledMs: number): Promise<string[]> {
      const result = await db.execute(sql`
        select run_id from run_finishes
         where step is not null
           and updated_at < now() - ${settledMs} * interval '1 millisecond'
         order by updated_at
         limit ${limit}`);
      return rowsOf<{ run_id: string }>(result).map((r) => r.run_id);
    },
  };
}
export type RunFinishRepository = ReturnType<typeof runFinishRepository>;
