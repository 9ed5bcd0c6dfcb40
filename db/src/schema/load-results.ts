// Data-plane load results: one row per load-test point, imported from runners' files.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
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

const real = (name: string) => doublePrecision(name);
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

export const loadResults = pgTable(
  'load_results',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    format: text('format').notNull(),
    mode: text('mode').notNull(),
    connections: integer('connections'),
    targetRps: real('target_rps'),
    achievedRps: real('achieved_rps'),
    durationMs: real('duration_ms'),
    requests: bigint('requests', { mode: 'number' }),
    errors: bigint('errors', { mode: 'number' }),
    errorsByCode: jsonb('errors_by_code').$type<Record<string, number>>().notNull().default({}),
    percentiles: jsonb('percentiles').$type<{ p: number; ms: number }[]>().notNull().default([]),
    histogram: jsonb('histogram').$type<{ fromMs: number; toMs: number; count: number }[] | null>(),
    minMs: real('min_ms'),
    meanMs: real('mean_ms'),
    maxMs: real('max_ms'),
    stdDevMs: real('std_dev_ms'),
    clientCpuCores: real('client_cpu_cores'),
    serverCpuCores: real('server_cpu_cores'),
    clientMemMiB: real('client_mem_mib'),
    serverMemMiB: real('server_mem_mib'),
    clientCpuCoresMax: real('client_cpu_cores_max'),
    serverCpuCoresMax: real('server_cpu_cores_max'),
    clientMemMiBMax: real('client_mem_mib_max'),
    serverMemMiBMax: real('server_mem_mib_max'),
    /**
     * The load generator that sent this point (a `generator` label), when a step is driven by
     * several: their points stay apart and are merged on read, histogram with histogram.
     */
    generator: text('generator'),
    /**
     * The point's whole latency distribution as an HdrHistogram (V2 compressed encoding, as
     * HdrHistogram's interval logs carry it), when it came as one: merged exactly on read.
     */
    hdr: bytea('hdr'),
    labels: jsonb('labels').$type<Record<string, string>>().notNull().default({}),
    /** The runner's own threshold verdicts ({metric, threshold, ok}), when its file has them. */
    thresholds: jsonb('thresholds').$type<
      { metric: string; threshold: string; ok: boolean }[] | null
    >(),
    startedAt: timestamp('started_at', { withTimezone: true, precision: 6, mode: 'string' }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
  },
  // A run's points are read together, in the order they were imported.
  (t) => [index('load_results_run_idx').on(t.runId, t.id)],
);

/**
 * A load point's distribution over time: one row per interval of one generator (an HdrHistogram
 * interval log's line, or k6 samples aggregated per interval on ingest).
 */
export const loadIntervals = pgTable(
  'load_intervals',
  {
    // No foreign key to runs: the table is list-partitioned by run (0031), and attaching a
    // new run's partition from the trigger on runs would clone the key and lock runs, which
    // deadlocks two run inserts. Deleting a run drops its partition (runs.repository).
    runId: uuid('run_id').notNull(),
    /** The load point (mode, connections, target rate, generator) the interval belongs to. */
    resultId: bigint('result_id', { mode: 'number' }).notNull(),
    /** Interval start and length, ms: start since the Unix epoch. */
    startMs: real('start_ms').notNull(),
    durationMs: real('duration_ms').notNull(),
    /** Requests completed in the interval, and of them failed (when the source says). */
    count: bigint('count', { mode: 'number' }).notNull(),
    errors: bigint('errors', { mode: 'number' }),
    minMs: real('min_ms'),
    maxMs: real('max_ms'),
    /** The interval's latency histogram, HdrHistogram V2 compressed encoding. */
    hdr: bytea('hdr').notNull(),
  },
  (t) => [index('load_intervals_run_idx').on(t.runId, t.resultId, t.startMs)],
);

/**
 * The stages view's slots, kept at ingest: every generator's and step's intervals whose start
 * rounds to `start_ms` on the run's grid (`interval_ms`, the intervals' most common length)
 * merged, histograms in the run's finest unit. Each upload adds its intervals under the run's
 * lock; a change of grid or unit rebuilds the run's slots from load_intervals.
 */
export const loadSlots = pgTable(
  'load_slots',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    startMs: real('start_ms').notNull(),
    /** The grid and unit the slot was merged on (the same on every slot of a run). */
    intervalMs: real('interval_ms').notNull(),
    unit: text('unit').notNull(),
    /** The longest interval merged, requests and errors summed (errors null when none said). */
    durationMs: real('duration_ms').notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull(),
    errors: bigint('errors', { mode: 'number' }),
    /** Intervals merged. */
    generators: integer('generators').notNull(),
    minMs: real('min_ms'),
    maxMs: real('max_ms'),
    /** The largest rounding of a merged interval's source, ms (k6's whole-us rounding). */
    roundingMs: real('rounding_ms').notNull(),
    /**
     * The slot's common percentiles (50, 90, 99, 99.9) as the view gives them
     * ({p, ms, accuracy}): a view asking only these decodes no histogram.
     */
    percentiles: jsonb('percentiles')
      .$type<{ p: number; ms: number; accuracy: unknown }[]>()
      .notNull(),
    /** The merged histogram, HdrHistogram V2 encoding uncompressed (read without inflating). */
    hdr: bytea('hdr').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.startMs] })],
);

/**
 * Interval-log uploads whose rows are being stored in bounded pieces, each piece a short
 * transaction of its own (the embedded database, whose one connection a long transaction
 * would hold while every read waits). `id` is the stage's first reserved load-result id;
 * `result_ids` are the ids reserved for its points. Their intervals are in load_intervals
 * already but no read sees them (reads leave out the result ids listed here), their points
 * are not in load_results yet, and the slots they make are in staged_load_slots. The
 * upload's short final transaction inserts its points, moves its slots into load_slots and
 * removes its row here: all of it becomes visible at once. A refused upload removes its rows
 * in pieces, then this row; rows left by a process killed meanwhile are removed when the
 * database opens again. No foreign key to runs: a run deleted meanwhile leaves its staged
 * rows to that cleanup.
 */
export const stagedResultUploads = pgTable(
  'staged_result_uploads',
  {
    runId: uuid('run_id').notNull(),
    id: bigint('id', { mode: 'number' }).notNull(),
    resultIds: bigint('result_ids', { mode: 'number' }).array().notNull(),
    /** Its slots were rebuilt from every interval (a new grid): they replace all of the run's. */
    replace: boolean('replace').notNull().default(false),
    stagedAt: timestamp('staged_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.runId, t.id] })],
);

/**
 * A staged upload's slots (load_slots' columns, merged outside any transaction from the
 * run's kept slots and the upload's intervals), written in pieces: the upload's final
 * transaction upserts them into load_slots in one statement (or, when the upload rebuilt
 * the run's slots, they take the place of all of the run's).
 */
export const stagedLoadSlots = pgTable(
  'staged_load_slots',
  {
    runId: uuid('run_id').notNull(),
    stageId: bigint('stage_id', { mode: 'number' }).notNull(),
    startMs: real('start_ms').notNull(),
    intervalMs: real('interval_ms').notNull(),
    unit: text('unit').notNull(),
    durationMs: real('duration_ms').notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull(),
    errors: bigint('errors', { mode: 'number' }),
    generators: integer('generators').notNull(),
    minMs: real('min_ms'),
    maxMs: real('max_ms'),
    roundingMs: real('rounding_ms').notNull(),
    percentiles: jsonb('percentiles')
      .$type<{ p: number; ms: number; accuracy: unknown }[]>()
      .notNull(),
    hdr: bytea('hdr').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.stageId, t.startMs] })],
);

/**
 * Result files stored on a run, so that one sent again is recognised: by its Idempotency-Key
 * (a retry after a lost answer), or by the SHA-256 of its body as sent with the same step
 * parameters (the same file posted twice, compressed the same way or not at all). The first upload's answer is kept to
 * answer the repeats with.
 */
export const resultUploads = pgTable(
  'result_uploads',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    idempotencyKey: text('idempotency_key'),
    bodySha256: text('body_sha256').notNull(),
    /** The step parameters it was posted with (mode, connections, ...), canonical JSON. */
    step: text('step').notNull(),
    /** The answer it got: {format, imported, unmapped, truncated, notes}. */
    answer: jsonb('answer').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    uniqueIndex('result_uploads_key_idx').on(t.runId, t.idempotencyKey),
    uniqueIndex('result_uploads_body_idx').on(t.runId, t.bodySha256, t.step),
  ],
);
