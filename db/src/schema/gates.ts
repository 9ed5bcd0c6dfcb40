// Regression gates: rules per project and benchmark, and their verdict on each finished run.
import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { projects } from './projects.ts';
import { runs } from './runs.ts';

export const thresholds = pgTable(
  'thresholds',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    benchmark: text('benchmark').notNull(),
    /** null: every scenario of the benchmark. */
    scenario: text('scenario'),
    /** A gate rule, e.g. p99>+10% or within1s<95%. */
    rule: text('rule').notNull(),
    /** A run id, or branch:NAME for the median of its last `last` finished runs. */
    baseline: text('baseline'),
    last: integer('last').notNull().default(5),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('thresholds_project_benchmark_idx').on(t.projectId, t.benchmark)],
);

export const gateResults = pgTable('gate_results', {
  runId: uuid('run_id')
    .primaryKey()
    .references(() => runs.id, { onDelete: 'cascade' }),
  passed: boolean('passed').notNull(),
  /** Per rule: the rule, baseline, current, bound, verdict and reason. */
  verdicts: jsonb('verdicts').$type<Record<string, unknown>[]>().notNull(),
  evaluatedAt: timestamp('evaluated_at', { withTimezone: true, precision: 6 })
    .notNull()
    .default(sql`now()`),
});
