// Metric series from StatsD and OTLP, and their points: one row per series per flush
// interval per API replica (or per OTLP data point). Reads combine rows; writes never update.
import { sql } from 'drizzle-orm';
import {
  bigint,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { runs } from './runs.ts';

/** An exemplar as a point row keeps it: epoch ms, a number or "NaN"/"+Inf"/"-Inf", labels. */
type StoredExemplar = {
  tMs: number;
  value: number | 'NaN' | '+Inf' | '-Inf';
  labels: Record<string, string>;
};

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'string' });
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
});

/**
 * A series: name + kind + tags within one run. Replicas create series concurrently, so
 * the identity is (run, key hash) and creation is an insert that ignores conflicts.
 */
export const metricSeries = pgTable(
  'metric_series',
  {
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    name: text('name').notNull(),
    kind: text('kind').notNull(),
    unit: text('unit'),
    tags: jsonb('tags').$type<Record<string, string>>().notNull().default({}),
    /** sha256 of source, kind, name and the sorted tags: the series identity in a run. */
    keyHash: text('key_hash').notNull(),
    createdAt: ts('created_at').notNull().default(sql`now()`),
  },
  // Keyed by run first (docs/scale.md: distributable by run id); the id alone stays unique
  // by its identity sequence.
  (t) => [
    primaryKey({ columns: [t.runId, t.id] }),
    uniqueIndex('metric_series_key_idx').on(t.runId, t.keyHash),
  ],
);

/**
 * Loaded by COPY in bulk, never updated: one index, the one every read uses.
 * - counter: sum = sample-rate corrected total of the interval, count = lines received.
 *   OTLP cumulative sums keep the running total in `last` with `start_at` set; reads turn
 *   consecutive rows of one (series, start_at) stream into increments (resets: value drops).
 * - gauge: last (deltas applied by the writing replica), min/max within the interval,
 *   last_at the time of the last sample (the tie-break between replicas).
 * - set: members seen in the interval (capped), last = distinct count of the interval.
 * - timer/histogram/distribution: count (sample-rate corrected), sum, min, max and a
 *   DDSketch (protobuf) that merges across rows, replicas and intervals.
 * - summary (OTLP): count, sum and the quantiles as sent (they do not merge).
 */
export const metricPoints = pgTable(
  'metric_points',
  {
    runId: uuid('run_id').notNull(),
    seriesId: bigint('series_id', { mode: 'number' }).notNull(),
    /** Start of the flush interval (StatsD) or the data point's time (OTLP). */
    t: ts('t').notNull(),
    intervalMs: integer('interval_ms').notNull(),
    /** Set only for OTLP cumulative points: the start of their accumulation. */
    startAt: ts('start_at'),
    replica: text('replica').notNull(),
    count: doublePrecision('count').notNull(),
    sum: doublePrecision('sum'),
    min: doublePrecision('min'),
    max: doublePrecision('max'),
    last: doublePrecision('last'),
    lastAt: ts('last_at'),
    members: text('members').array(),
    sketch: bytea('sketch'),
    quantiles: jsonb('quantiles').$type<{ q: number; value: number }[]>(),
    /**
     * A gauge's last value exactly, as decimal text, when it is an integer a float8 cannot
     * hold (beyond 2^53: Envoy's uint64 gauges such as a config version hash).
     */
    lastExact: text('last_exact'),
    /**
     * Exemplars sent with the point (Prometheus remote write): each with its own time in
     * epoch ms, its value (a number, or "NaN"/"+Inf"/"-Inf") and its labels (a trace id).
     */
    exemplars: jsonb('exemplars').$type<StoredExemplar[]>(),
  },
  // One row per point: a retried export (the same series, time, interval and start, from
  // any replica: OTLP rows name no replica) is stored once. Every read uses its prefix.
  (t) => [
    uniqueIndex('metric_points_point_idx').on(
      t.runId,
      t.seriesId,
      t.t,
      t.intervalMs,
      t.replica,
      sql`coalesce(${t.startAt}, '-infinity'::timestamptz)`,
    ),
  ],
);

/**
 * Points that matched no run when they arrived (no run of their environment yet, or not
 * in its window), kept for MESHBENCH_UNMATCHED_RETENTION_MS so that a run created later
 * claims them: those in its window, and for each cumulative stream the last point at or
 * before its start (the reference its first increase is counted from). Each carries its
 * series' identity and the project it may go to (null: any, as the admin's and an unbound
 * StatsD listener's).
 */
export const unmatchedPoints = pgTable(
  'unmatched_points',
  {
    projectId: uuid('project_id'),
    environment: text('environment'),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'string' })
      .notNull()
      .default(sql`now()`),
    source: text('source').notNull(),
    name: text('name').notNull(),
    kind: text('kind').notNull(),
    unit: text('unit'),
    tags: jsonb('tags').$type<Record<string, string>>().notNull(),
    keyHash: text('key_hash').notNull(),
    t: ts('t').notNull(),
    intervalMs: integer('interval_ms').notNull(),
    startAt: ts('start_at'),
    replica: text('replica').notNull(),
    count: doublePrecision('count').notNull(),
    sum: doublePrecision('sum'),
    min: doublePrecision('min'),
    max: doublePrecision('max'),
    last: doublePrecision('last'),
    lastAt: ts('last_at'),
    members: text('members').array(),
    sketch: bytea('sketch'),
    quantiles: jsonb('quantiles').$type<{ q: number; value: number }[]>(),
    lastExact: text('last_exact'),
    exemplars: jsonb('exemplars').$type<StoredExemplar[]>(),
  },
  (t) => [
    index('unmatched_points_claim_idx').on(t.environment, t.t),
    index('unmatched_points_received_idx').on(t.receivedAt),
  ],
);
