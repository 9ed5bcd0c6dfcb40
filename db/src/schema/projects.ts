// Projects own runs; API tokens give write access to one project, stored only as hashes.
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** The project of runs created without one; made by the migration that adds projects. */
export const DEFAULT_PROJECT_ID = '00000000-0000-4000-8000-000000000001';

export const projects = pgTable('projects', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull().unique(),
  /** public: anyone reads its runs; private: a token of the project (or a share link). */
  visibility: text('visibility').notNull().default('public'),
  /**
   * The project's change-point detection settings (maxPValue, minMagnitude, minSegment), where
   * they differ from the defaults; null: the defaults.
   */
  detection: jsonb('detection').$type<Record<string, number>>(),
  /**
   * Days a run's raw rows (observations, incidents, lifecycle events, clock reports, metric
   * points, load intervals) are kept once the run is done; null: kept for ever. Its summaries,
   * history values and the runs pinned as a baseline or shared in a report are always kept.
   */
  rawRetentionDays: integer('raw_retention_days'),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 6 })
    .notNull()
    .default(sql`now()`),
});

export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the token, hex: the token itself is shown once and never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    /** The first characters, so a person can tell tokens apart in a list. */
    prefix: text('prefix').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, precision: 6 }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, precision: 6 }),
  },
  (t) => [index('api_tokens_project_idx').on(t.projectId)],
);
