// What a history reads of each finished run (propagation, scale-up and data-plane facts),
// kept once computed so that a history of 1,000 runs reads rows instead of recomputing.
import { sql } from 'drizzle-orm';
import {
  doublePrecision,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { runs } from './runs.ts';

/**
 * A finished run's kept facts and whether they are current: every write to the run after
 * its finish (events, load results) adds one to `data_version`; the kept metrics were
 * computed from `facts_version`, and are current only while the two are equal.
 */
export const runFacts = pgTable('run_facts', {
  runId: uuid('run_id')
    .primaryKey()
    .references(() => runs.id, { onDelete: 'cascade' }),
  dataVersion: integer('data_version').notNull().default(0),
  /** The data_version the kept rows were computed from; null: none computed yet. */
  factsVersion: integer('facts_version'),
  /**
   * The data_version the series' change points were last looked for at (at the finish, and
   * again after a late write); null: not yet. Behind data_version, they are looked for again.
   */
  alertsVersion: integer('alerts_version'),
  /** The run's load points reduced to what a data-plane metric reads (one per step). */
  load: jsonb('load').$type<Record<string, unknown>[]>().notNull().default([]),
  computedAt: timestamp('computed_at', { withTimezone: true, precision: 6 })
    .notNull()
    .default(sql`now()`),
});

/** One history metric of a run: its value and, for a percentile or time to N %, its exactness. */
export const runMetrics = pgTable(
  'run_metrics',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    metric: text('metric').notNull(),
    value: doublePrecision('value').notNull(),
    accuracy: jsonb('accuracy').$type<Record<string, unknown>>(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.metric] })],
);
