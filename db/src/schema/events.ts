// Probe events as stored: changes, observations, incidents, lifecycle events, batches.
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

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 6, mode: 'string' });
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
});

export const changes = pgTable(
  'changes',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    kind: text('kind').notNull(),
    target: text('target').notNull(),
    action: text('action').notNull(),
    at: ts('at').notNull(),
    expected: integer('expected'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.id] })],
);

// Loaded by COPY in bulk: one index only, and a cheap one.
export const observations = pgTable(
  'observations',
  {
    runId: uuid('run_id').notNull(),
    changeId: text('change_id').notNull(),
    proxy: text('proxy').notNull(),
    node: text('node'),
    at: ts('at').notNull(),
    cause: text('cause'),
    attrs: jsonb('attrs').$type<Record<string, string | number | boolean>>(),
    batchId: bigint('batch_id', { mode: 'number' }).notNull(),
    /** What the proxy had done with the change when observed; null is `applied`. */
    stage: text('stage'),
  },
  // BRIN on the batch, not a btree on (run, change): batches take ever larger ids and COPY
  // appends, so a run's rows sit in the block ranges of its batches. Keeping a btree while
  // loading cut COPY to a third; BRIN costs next to nothing. Reads of a run name its batch
  // range (see runBatchRange in the API's repositories) and filter on run and change.
  (t) => [
    index('observations_batch_brin')
      .using('brin', t.batchId)
      .with({ pages_per_range: 16, autosummarize: true }),
  ],
);

export const incidents = pgTable(
  'incidents',
  {
    runId: uuid('run_id').notNull(),
    kind: text('kind').notNull(),
    node: text('node'),
    proxy: text('proxy'),
    from: ts('from').notNull(),
    to: ts('to'),
    attrs: jsonb('attrs').$type<Record<string, string | number | boolean>>(),
    batchId: bigint('batch_id', { mode: 'number' }).notNull(),
  },
  (t) => [index('incidents_run_idx').on(t.runId, t.from)],
);

export const lifecycleEvents = pgTable(
  'lifecycle_events',
  {
    runId: uuid('run_id').notNull(),
    phase: text('phase').notNull(),
    entity: text('entity').notNull(),
    node: text('node'),
    at: ts('at').notNull(),
    attrs: jsonb('attrs').$type<Record<string, string | number | boolean>>(),
    batchId: bigint('batch_id', { mode: 'number' }).notNull(),
  },
  // The timeline takes each entity's first arrival per phase from this order, no sort.
  (t) => [index('lifecycle_events_run_entity_idx').on(t.runId, t.phase, t.entity, t.at)],
);

/**
 * Each entity's first arrival in each phase of a run, kept up to date by every batch: a
 * later batch learns which of its entities arrived earlier without reading the run's
 * events again.
 */
export const lifecycleFirsts = pgTable(
  'lifecycle_firsts',
  {
    runId: uuid('run_id').notNull(),
    phase: text('phase').notNull(),
    entity: text('entity').notNull(),
    firstAt: ts('first_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.phase, t.entity] })],
);

/**
 * A phase of a run as the timeline reads it: its entities' first arrivals, sorted, as one
 * value (epoch microseconds, float8 big-endian as float8send() writes them), the number of
 * entities and the largest numeric attrs.total. The timeline reads one row per phase.
 */
export const lifecyclePhases = pgTable(
  'lifecycle_phases',
  {
    runId: uuid('run_id').notNull(),
    phase: text('phase').notNull(),
    entities: integer('entities').notNull(),
    attrsTotal: doublePrecision('attrs_total'),
    firsts: bytea('firsts').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.phase] })],
);

/**
 * One row per accepted batch: the idempotency record and the batch id of its rows. A batch
 * cut from a larger input (the CLI's file) names it by `source` (a SHA-256 of the input)
 * and the lines it holds, first to last, so that sending the input again, however it is
 * cut, sends only the lines no batch has stored.
 */
export const eventBatches = pgTable(
  'event_batches',
  {
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    idempotencyKey: text('idempotency_key'),
    bodySha256: text('body_sha256').notNull(),
    accepted: integer('accepted').notNull(),
    createdAt: ts('created_at').notNull().default(sql`now()`),
    source: text('source'),
    firstLine: integer('first_line'),
    lastLine: integer('last_line'),
  },
  // Keyed by run first (docs/scale.md: distributable by run id); the id alone stays unique
  // by its identity sequence, and a run's batch range is one walk of this key.
  (t) => [
    primaryKey({ columns: [t.runId, t.id] }),
    uniqueIndex('event_batches_key_idx').on(t.runId, t.idempotencyKey),
    index('event_batches_source_idx')
      .on(t.runId, t.source, t.firstLine)
      .where(sql`source is not null`),
  ],
);

/**
 * Batches whose rows are being stored in bounded pieces, each piece its own short
 * transaction (the embedded database, whose one connection a long transaction would hold
 * while every read waits). Their observations are in the table but no read sees them: reads
 * leave out the batches listed here. The batch's own transaction removes its row here as it
 * commits (the rows become visible at once); a refused batch removes its rows, then this
 * row; rows left by a process killed meanwhile are removed when the database opens again.
 * No foreign key to runs: a run deleted meanwhile leaves its staged rows to that cleanup.
 */
export const stagedEventBatches = pgTable(
  'staged_event_batches',
  {
    runId: uuid('run_id').notNull(),
    id: bigint('id', { mode: 'number' }).notNull(),
    stagedAt: ts('staged_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.runId, t.id] })],
);

/** The stage an observation without one is of. */
export const DEFAULT_STAGE = 'applied';

/**
 * The kept summary of a change at one stage, recomputed when a batch touches it, so reads
 * never rescan the observations. Latencies are microseconds. `clock` is `raw` (the
 * proxies' own timestamps, kept by every batch) or `corrected` (each node's clock offset
 * taken out, computed from the raw observations and the run's clock reports; the
 * `clock_*` columns say what it was computed from and how far it can be off).
 */
export const changeSummaries = pgTable(
  'change_summaries',
  {
    runId: uuid('run_id').notNull(),
    changeId: text('change_id').notNull(),
    stage: text('stage').notNull().default(DEFAULT_STAGE),
    clock: text('clock').notNull().default('raw'),
    count: integer('count').notNull(),
    observations: integer('observations').notNull(),
    repeats: integer('repeats').notNull(),
    beforeChange: integer('before_change').notNull(),
    minUs: doublePrecision('min_us'),
    maxUs: doublePrecision('max_us'),
    sumUs: doublePrecision('sum_us').notNull(),
    blockSize: integer('block_size').notNull(),
    /** First latency of each block (float64 LE): every block boundary in one read. */
    blockFirsts: bytea('block_firsts').notNull(),
    computedAt: ts('computed_at').notNull().default(sql`now()`),
    /** Every batch with observations of the change left its proxy_fingerprints. */
    proxiesFingerprinted: boolean('proxies_fingerprinted').notNull().default(false),
    /** corrected only: the largest clock error (us) of any corrected latency. */
    clockMaxErrorUs: doublePrecision('clock_max_error_us'),
    /** corrected only: nodes with and without clock reports among the proxies' nodes. */
    clockNodes: integer('clock_nodes'),
    uncorrectedNodes: integer('uncorrected_nodes'),
    /** corrected only: the run's largest event batch id when it was computed (staleness). */
    clockInputBatch: bigint('clock_input_batch', { mode: 'number' }),
    /**
     * The latency_blocks (by their batch_id) that are this summary's: blocks of another
     * batch_id under its key are staged ahead of a batch's transaction or left to remove.
     */
    blocksBatch: bigint('blocks_batch', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.runId, t.changeId, t.stage, t.clock] })],
);

/**
 * A fingerprint (53 bits, float64 LE) of each proxy a batch observed for a change. A later
 * batch of the change whose proxies' fingerprints are none of these knows its proxies are
 * new without reading the change's earlier observations, which no index leads to.
 */
export const proxyFingerprints = pgTable(
  'proxy_fingerprints',
  {
    runId: uuid('run_id').notNull(),
    changeId: text('change_id').notNull(),
    stage: text('stage').notNull().default(DEFAULT_STAGE),
    batchId: bigint('batch_id', { mode: 'number' }).notNull(),
    /** A batch's fingerprints in parts of a bounded size, each written by its own statement. */
    part: integer('part').notNull().default(0),
    fingerprints: bytea('fingerprints').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.changeId, t.stage, t.batchId, t.part] })],
);

/**
 * The sorted first-application latencies of a change in fixed-size blocks (float64 LE,
 * microseconds). Any nearest-rank percentile, count below a bound, or histogram edge is
 * a lookup in one block, so every summary stays exact without reading observations.
 * Migration 0007 stores `latencies` uncompressed (STORAGE EXTERNAL): floats do not compress.
 * `batch_id` is the event batch that wrote them (0: before migration 0030, or corrected):
 * only the blocks whose batch_id is their summary's `blocks_batch` are read.
 */
export const latencyBlocks = pgTable(
  'latency_blocks',
  {
    runId: uuid('run_id').notNull(),
    changeId: text('change_id').notNull(),
    stage: text('stage').notNull().default(DEFAULT_STAGE),
    clock: text('clock').notNull().default('raw'),
    batchId: bigint('batch_id', { mode: 'number' }).notNull().default(0),
    blockNo: integer('block_no').notNull(),
    latencies: bytea('latencies').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.changeId, t.stage, t.clock, t.batchId, t.blockNo] })],
);

/**
 * What a runner knew of a node's clock at a moment of the reference clock: its offset
 * (node clock minus reference, us; positive when the node's clock is ahead) and the most
 * that offset can be wrong by. Reports given as an NTP exchange (t1..t4) are stored as
 * the offset and error they give.
 */
export const clockReports = pgTable(
  'clock_reports',
  {
    runId: uuid('run_id').notNull(),
    node: text('node').notNull(),
    at: ts('at').notNull(),
    offsetUs: doublePrecision('offset_us').notNull(),
    errorUs: doublePrecision('error_us').notNull(),
    batchId: bigint('batch_id', { mode: 'number' }).notNull(),
  },
  // Every read takes a run's reports whole (or counts them and their last batch): the run and
  // the batch are all an index needs. One on (run, node, at) cost a batch's COPY of 20,000
  // reports twice what the rows did, each a text key put in its place (migration 0033).
  (t) => [index('clock_reports_run_batch_idx').on(t.runId, t.batchId)],
);
