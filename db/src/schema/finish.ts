// Finishing a run is one resumable unit (apps/api services/run-finish.service.ts): its steps
// run in order after the run's status is set, each one's completion kept here, so a step that
// failed is visible on the run and tried again (by the next PATCH, or the background worker).
import { sql } from 'drizzle-orm';
import { integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { runs } from './runs.ts';

export const runFinishes = pgTable('run_finishes', {
  runId: uuid('run_id')
    .primaryKey()
    .references(() => runs.id, { onDelete: 'cascade' }),
  /** The next step to do (it and every later one are undone); null: finishing is complete. */
  step: text('step'),
  /** Tries of `step` that failed since it became the next. */
  failures: integer('failures').notNull().default(0),
  /** The last failure of `step`: when, and its error (kept for operators, not answered). */
  failedAt: timestamp('failed_at', { withTimezone: true, precision: 6 }),
  error: text('error'),
  /** When the finish began or last moved on: a worker leaves a finish in progress alone. */
  updatedAt: timestamp('updated_at', { withTimezone: true, precision: 6 })
    .notNull()
    .default(sql`now()`),
});
