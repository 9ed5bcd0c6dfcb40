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

/**
 * Something a person should look at: a change point in a series' history, or a failed gate.
 * A change point keeps its alert (and its state) when later runs arrive; when later data
 * moves it to a nearby run, the alert follows and its log says so.
 */
export const alerts = pgTable(
  'alerts',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** 'change-point' or 'gate'. */
    kind: text('kind').notNull(),
    /** The series: benchmark, scenario, mesh, branch, metric, as canonical JSON. */
    seriesKey: text('series_key').notNull(),
    series: jsonb('series').$type<Record<string, string | null>>().notNull(),
    /** The first run after the change (a change point), or the gated run. */
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    previousRunId: uuid('previous_run_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull(),
    /** 'open', 'acknowledged' or 'dismissed'. */
    state: text('state').notNull().default('open'),
    /** false once later data no longer finds the change point (kept, and said so). */
    detected: boolean('detected').notNull().default(true),
    /** Who did what when: detection, moves, state changes with their reason. */
    log: jsonb('log').$type<Record<string, unknown>[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('alerts_project_series_idx').on(t.projectId, t.seriesKey)],
);
