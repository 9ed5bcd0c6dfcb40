// Background work that must run once across replicas (the alerts recheck, forgetting held
// metric points) runs on the replica that holds its lease: one row per job, taken when free
// or expired, renewed by its holder on each tick.
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const backgroundLeases = pgTable('background_leases', {
  /** The job: alerts-recheck, held-points-expiry. */
  job: text('job').primaryKey(),
  /** The replica holding it: a random id each process picks at start. */
  holder: text('holder').notNull(),
  /** Past this, another replica may take it (its holder stopped without giving it back). */
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 6 }).notNull(),
});
