// Reports: frozen snapshots of one to four runs, shared by an unguessable slug.
import { sql } from 'drizzle-orm';
import { jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const reports = pgTable('reports', {
  id: uuid('id').primaryKey(),
  /** The share id: 128 random bits, base64url. The only way to read a report. */
  slug: text('slug').notNull().unique(),
  title: text('title').notNull(),
  /** The runs it was made of, for deleting rights; never returned to readers. */
  runIds: uuid('run_ids').array().notNull(),
  /** What the screen showed, computed once: summaries, not a live query. */
  snapshot: jsonb('snapshot').$type<Record<string, unknown>>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 6 })
    .notNull()
    .default(sql`now()`),
});
