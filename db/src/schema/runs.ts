// Runs: the root of every other table; everything below is keyed by run first.
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { DEFAULT_PROJECT_ID, projects } from './projects.ts';

export const runs = pgTable(
  'runs',
  {
    id: uuid('id').primaryKey(),
    slug: text('slug').notNull().unique(),
    projectId: uuid('project_id')
      .notNull()
      .default(DEFAULT_PROJECT_ID)
      .references(() => projects.id),
    benchmark: text('benchmark').notNull(),
    scenario: text('scenario').notNull(),
    meshName: text('mesh_name').notNull(),
    meshVersion: text('mesh_version'),
    platform: text('platform'),
    topology: jsonb('topology').$type<Record<string, number>>().notNull().default({}),
    environment: text('environment'),
    labels: jsonb('labels').$type<Record<string, string>>().notNull().default({}),
    status: text('status').notNull().default('running'),
    startedAt: timestamp('started_at', { withTimezone: true, precision: 6 }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true, precision: 6 }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
    changeCount: integer('change_count').notNull().default(0),
    /** When retention dropped the run's raw rows (its project's raw_retention_days); null: kept. */
    rawDroppedAt: timestamp('raw_dropped_at', { withTimezone: true, precision: 6 }),
  },
  (t) => [
    // The runs list: newest first, optionally narrowed by mesh/benchmark/scenario.
    index('runs_started_idx').on(t.startedAt.desc(), t.id),
    index('runs_benchmark_scenario_idx').on(t.benchmark, t.scenario, t.startedAt.desc()),
    index('runs_labels_idx').using('gin', t.labels),
    index('runs_project_idx').on(t.projectId, t.startedAt.desc()),
  ],
);

/**
 * The audit of run deletions: who deleted which run of which project, when, and how many rows
 * of each table went with it. Not keyed to `runs` (the run is gone); kept after it.
 */
export const runDeletions = pgTable(
  'run_deletions',
  {
    id: uuid('id').primaryKey(),
    /** The deleted run's id (no foreign key: the run no longer exists). */
    deletedRunId: uuid('deleted_run_id').notNull(),
    slug: text('slug').notNull(),
    projectId: uuid('project_id').notNull(),
    benchmark: text('benchmark').notNull(),
    /** "admin", or "token:<token id>" of the project's token that asked. */
    deletedBy: text('deleted_by').notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
    /** Rows removed per table, the runs row included. */
    rows: jsonb('rows').$type<Record<string, number>>().notNull(),
  },
  (t) => [index('run_deletions_project_idx').on(t.projectId, t.deletedAt.desc())],
);
