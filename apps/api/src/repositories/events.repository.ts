// Probe-event batches: one transaction per batch, rows loaded by COPY, kept summaries.
import { createHash } from 'node:crypto';
import {
  COPY_BINARY_HEADER,
  COPY_BINARY_TRAILER,
  CopyBinaryReader,
  CopyBinaryWriter,
  copyText,
  type Database,
  DEFAULT_STAGE,
  int64Field,
  isUuid,
  putFloat8Field,
  putInt4Field,
  putInt16,
  putTimestampField,
  RUN_PARTITIONED_TABLES,
  runPartitionName,
  type Tx,
  tables,
  uuidField,
  uuidLiteral,
} from '@meshbench/db';
import { and, asc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type {
  DecodedClock,
  DecodedIncident,
  DecodedLifecycle,
  ProxyStageRow,
} from '../domain/event-records.ts';
import type { KeptSummary } from '../domain/kept-summary.ts';
import { epochUs } from './epoch.ts';
import {
  INCIDENT_COLUMNS,
  incidentRows,
  LIFECYCLE_COLUMNS,
  lifecycleRows,
  OBSERVATION_COLUMNS,
  ObservationRows,
} from './event-rows.ts';
import { fromFloat8Send, toFloat8Send } from './float8-send.ts';
import {
  deleteLatencyBlocks,
  LATENCY_BLOCK_COLUMNS,
  latencyBlockRows,
  takeBlocks,
  upsertSummary,
  visibleBlocks,
} from './latency-blocks.ts';
import {
  inRunBatches,
  inRunBatchesText,
  planForObservations,
  readObservations,
} from './observation-scope.ts';
import { rowsOf } from './result-rows.ts';
import { markRunsWritten } from './run-facts.repository.ts';
import { ensureRunPartitions } from './run-partitions.ts';

const { changes, changeSummaries, eventBatches, lifecyclePhases, stagedEventBatches } = tables;

/** Rows of a staged batch removed by one statement when it is refused (bounded pieces). */
const DISCARD_ROWS = 5000;
/** Latency blocks (1024 latencies, 8 KB) staged by one statement: ~20 ms on the embedded database. */
const STAGE_BLOCKS = 48;
/** Latency blocks read (blocksOf) and removed (dropBlocks) by one statement. */
const READ_BLOCKS = 128;
const DROP_BLOCKS = 96;
/**
 * The observation index's pages_per_range (migration 0005), and its ranges summarised a
 * statement: 16 ranges (2 MB of rows) take ~15 ms on the embedded database; 64 took 50-190 ms
 * a statement after a 64 MB batch, the longest statements of its upload.
 */
const BRIN_PAGES_PER_RANGE = 16;
const BRIN_PIECE = 16;

/**
 * What a batch finds kept of a change before it: observations, latencies, whether
 * fingerprinted, and the batch whose blocks are the summary's (blocks_batch).
 */
export interface PriorSummary {
  observations: number;
  count: number;
  proxiesFingerprinted: boolean;
  blocksBatch: number;
}

export interface StoredChange {
  id: string;
  kind: string;
  target: string;
  action: string;
  atUs: number;
  expected: number | null;
}

/** A kept summary (built by domain/kept-summary.ts) as a batch stores it. */
export interface SummaryToSave extends KeptSummary {
  proxiesFingerprinted: boolean;
}

const CLOCK_COLUMNS = ['run_id', 'node', 'at', 'offset_us', 'error_us', 'batch_id'];
const FINGERPRINT_COLUMNS = ['run_id', 'change_id', 'batch_id', 'part', 'fingerprints', 'stage'];
/** Fingerprints a row of proxy_fingerprints holds (512 KB). */
const FINGERPRINT_PART = 65_536;

/** A change at a stage: what a kept summary is of. */
export interface ChangeStage {
  changeId: string;
  stage: string;
}

/** The lines of a source that one batch holds, first to last (1-based). */
export interface SourceLines {
  source: string;
  first: number;
  last: number;
}

/**
 * A transaction-scoped advisory lock's key: 64 bits of a SHA-256 of what it guards (the
 * run, a kind of kept state, its name). Two names that share a key only wait for each other.
 */
export function lockKey(runId: string, kind: string, name: string): bigint {
  const digest = createHash('sha256').update(`${runId}\0${kind}\0${name}`).digest();
  return digest.readBigInt64BE(0);
}

/** A batch's proxy fingerprints for a change at a stage. */
export interface Fingerprinted {
  changeId: string;
  stage: string;
  fingerprints: Float64Array;
}

/**
 * Writes one part of a batch's proxy fingerprints of a change at a stage as a COPY row:
 * FINGERPRINT_PART of them a row, so that staging writes a row a statement (550,000
 * proxies' 4.4 MB as one row held the embedded database for a few hundred milliseconds).
 */
function putFingerprintRow(
  out: CopyBinaryWriter,
  runId: string,
  batchId: number,
  { changeId, stage, fingerprints }: Fingerprinted,
  part: number,
): void {
  const run = uuidField(runId);
  const batch = int64Field(batchId);
  const change = Buffer.from(changeId);
  const stageBytes = Buffer.from(stage);
  const bytes = toBytes(
    fingerprints.subarray(part * FINGERPRINT_PART, (part + 1) * FINGERPRINT_PART),
  );
  out.room(
    2 +
      run.length +
      4 +
      change.length +
      batch.length +
      8 +
      4 +
      bytes.length +
      4 +
      stageBytes.length,
  );
  out.pos = putInt16(out.buf, out.pos, FINGERPRINT_COLUMNS.length);
  out.bytes(run);
  out.field(change);
  out.bytes(batch);
  out.pos = putInt4Field(out.buf, out.pos, part);
  out.field(bytes);
  out.field(stageBytes);
}

/** The parts (rows) a batch's fingerprints of a change at a stage take: at least one. */
const fingerprintParts = (f: Fingerprinted) =>
  Math.max(1, Math.ceil(f.fingerprints.length / FINGERPRINT_PART));

/** Stores a batch's proxy fingerprints, every part of every change and stage, by one COPY. */
async function writeFingerprints(
  tx: Tx,
  runId: string,
  batchId: number,
  fingerprinted: readonly Fingerprinted[],
): Promise<void> {
  if (fingerprinted.length === 0) return;
  const out = new CopyBinaryWriter();
  for (const f of fingerprinted)
    for (let part = 0; part < fingerprintParts(f); part++)
      putFingerprintRow(out, runId, batchId, f, part);
  await tx.copy('proxy_fingerprints', FINGERPRINT_COLUMNS, out.end(), { format: 'binary' });
}

/** float64s from byte slices at any offset (COPY's fields), copied once into aligned memory. */
function alignedFloat64(parts: Uint8Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0) / 8);
  const bytes = new Uint8Array(out.buffer);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return out;
}

const toBytes = (values: Float64Array) =>
  Buffer.from(values.buffer, values.byteOffset, values.byteLength);

/**
 * How a batch's store makes the run's partition of a raw table before its first write there
 * (ensureRunPartitions): in the batch's transaction unless told.
 */
type MakePartitions = (tables: readonly string[]) => Promise<void>;

function batchStore(tx: Tx, runId: string, batchId: number, makePartitions?: MakePartitions) {
  const partitions: MakePartitions =
    makePartitions ?? ((tables) => ensureRunPartitions(tx.db, [runId], tables));
  /** COPY takes no parameters: the change and stage travel as settings of this transaction. */
  const useChangeStage = (changeId: string, stage: string) =>
    tx.db.execute(
      sql`select set_config('meshbench.change_id', ${changeId}, true), set_config('meshbench.stage', ${stage}, true)`,
    );
  return {
    batchId,

    /**
     * Waits for, then holds until the transaction ends, the kept state of these changes,
     * changes at a stage and lifecycle phases of the run: a concurrent batch that touches
     * any of them waits here, and reads the state this one leaves. Taken in one order (by
     * key), so two batches never each hold what the other waits for.
     */
    async lockKeptState(
      changeIds: Iterable<string>,
      changeStages: Iterable<ChangeStage>,
      phases: Iterable<string>,
    ): Promise<void> {
      const keys = new Set<bigint>();
      for (const id of changeIds) keys.add(lockKey(runId, 'change', id));
      for (const { changeId, stage } of changeStages)
        keys.add(lockKey(runId, 'change-stage', `${changeId}\0${stage}`));
      for (const phase of phases) keys.add(lockKey(runId, 'phase', phase));
      if (keys.size === 0) return;
      const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
      await tx.db.execute(
        sql`select pg_advisory_xact_lock(k) from unnest(${sql.param(sorted)}::int8[]) as u(k)`,
      );
    },

    /**
     * Holds the run's record of a source's lines until the transaction ends, and returns a
     * batch of it already stored whose lines overlap `lines`, if any.
     */
    async claimSourceLines(lines: SourceLines): Promise<SourceLines | undefined> {
      await tx.db.execute(
        sql`select pg_advisory_xact_lock(${String(lockKey(runId, 'source', lines.source))}::int8)`,
      );
      const [stored] = await tx.db
        .select({ first: eventBatches.firstLine, last: eventBatches.lastLine })
        .from(eventBatches)
        .where(
          and(
            eq(eventBatches.runId, runId),
            eq(eventBatches.source, lines.source),
            sql`${eventBatches.id} <> ${batchId}`,
            sql`${eventBatches.firstLine} <= ${lines.last}`,
            sql`${eventBatches.lastLine} >= ${lines.first}`,
          ),
        )
        .limit(1);
      return stored
        ? { source: lines.source, first: stored.first as number, last: stored.last as number }
        : undefined;
    },
    /** Rows of `ObservationRows` (`observationRows()`), header and trailer included. */
    copyObservations: (
      rows: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
      whileFinishing?: () => void | Promise<void>,
    ) => tx.copy('observations', OBSERVATION_COLUMNS, rows, { format: 'binary', whileFinishing }),
    // The run's first incidents or lifecycle events make its partition of the table (known
    // only once the batch is read): see inBatch for where. None, no statement.
    async copyIncidents(incidents: readonly DecodedIncident[]) {
      if (incidents.length === 0) return;
      await partitions(['incidents']);
      await tx.copy('incidents', INCIDENT_COLUMNS, incidentRows(runId, batchId, incidents));
    },
    async copyLifecycle(events: readonly DecodedLifecycle[]) {
      if (events.length === 0) return;
      await partitions(['lifecycle_events']);
      await tx.copy('lifecycle_events', LIFECYCLE_COLUMNS, lifecycleRows(runId, batchId, events));
    },

    /**
     * Stores the batch's clock reports and marks every corrected summary of the run stale,
     * under the run's clock lock: a corrected summary being computed (which holds it too)
     * either sees these reports or is marked stale after it commits.
     */
    async storeClocks(clocks: readonly DecodedClock[]): Promise<void> {
      if (clocks.length === 0) return;
      await tx.db.execute(
        sql`select pg_advisory_xact_lock(${String(lockKey(runId, 'clocks', ''))}::int8)`,
      );
      // By binary COPY: 20,000 reports as one insert's array parameters cost three times as much.
      const out = new CopyBinaryWriter();
      const run = uuidField(runId);
      const batch = int64Field(batchId);
      for (const c of clocks) {
        const node = Buffer.from(c.node);
        out.room(2 + run.length + 4 + node.length + 12 + 24 + batch.length);
        out.pos = putInt16(out.buf, out.pos, CLOCK_COLUMNS.length);
        out.bytes(run);
        out.field(node);
        out.pos = putTimestampField(out.buf, out.pos, c.atUs);
        out.pos = putFloat8Field(out.buf, out.pos, c.offsetUs);
        out.pos = putFloat8Field(out.buf, out.pos, c.errorUs);
        out.bytes(batch);
      }
      await tx.copy('clock_reports', CLOCK_COLUMNS, out.end(), { format: 'binary' });
      await tx.db
        .update(changeSummaries)
        .set({ clockInputBatch: null })
        .where(and(eq(changeSummaries.runId, runId), eq(changeSummaries.clock, 'corrected')));
    },

    async storedChanges(ids: string[]): Promise<StoredChange[]> {
      if (ids.length === 0) return [];
      return tx.db
        .select({
          id: changes.id,
          kind: changes.kind,
          target: changes.target,
          action: changes.action,
          atUs: epochUs(changes.at),
          expected: changes.expected,
        })
        .from(changes)
        .where(and(eq(changes.runId, runId), inArray(changes.id, ids)));
    },

    async insertChanges(rows: (StoredChange & { at: string })[]): Promise<void> {
      if (rows.length === 0) return;
      await tx.db.insert(changes).values(
        rows.map((c) => ({
          runId,
          id: c.id,
          kind: c.kind,
          target: c.target,
          action: c.action,
          at: c.at,
          expected: c.expected,
        })),
      );
      await tx.db.execute(
        sql`update runs set change_count = change_count + ${rows.length} where id = ${runId}`,
      );
    },

    /** What the kept summaries of these changes hold from before this batch: change -> stage -> it. */
    async priorSummaries(changeIds: string[]): Promise<Map<string, Map<string, PriorSummary>>> {
      if (changeIds.length === 0) return new Map();
      const rows = await tx.db
        .select({
          changeId: changeSummaries.changeId,
          stage: changeSummaries.stage,
          observations: changeSummaries.observations,
          count: changeSummaries.count,
          proxiesFingerprinted: changeSummaries.proxiesFingerprinted,
          blocksBatch: changeSummaries.blocksBatch,
        })
        .from(changeSummaries)
        .where(
          and(
            eq(changeSummaries.runId, runId),
            inArray(changeSummaries.changeId, changeIds),
            eq(changeSummaries.clock, 'raw'),
          ),
        );
      const out = new Map<string, Map<string, PriorSummary>>();
      for (const { changeId, stage, ...prior } of rows) {
        let stages = out.get(changeId);
        if (!stages) {
          stages = new Map();
          out.set(changeId, stages);
        }
        stages.set(stage, prior);
      }
      return out;
    },

    /** The proxy fingerprints earlier batches left for the change at a stage, one array per batch. */
    async keptFingerprints(changeId: string, stage: string): Promise<Float64Array[]> {
      await useChangeStage(changeId, stage);
      const copied = await tx.copyOut(
        `select fingerprints from proxy_fingerprints where run_id = ${uuidLiteral(runId)}
           and change_id = current_setting('meshbench.change_id')
           and stage = current_setting('meshbench.stage') and batch_id <> ${batchId}`,
      );
      const out: Float64Array[] = [];
      const reader = new CopyBinaryReader(copied);
      while (reader.next()) out.push(alignedFloat64([reader.bytes() as Buffer]));
      return out;
    },

    /** This batch's proxy fingerprints, per change and stage it observed. */
    saveFingerprints: (fingerprinted: Fingerprinted[]) =>
      writeFingerprints(tx, runId, batchId, fingerprinted),

    /**
     * The earlier first application (epoch us) of each proxy this batch reports for the
     * change at a stage and an earlier batch already did: the batch's rows are loaded, so
     * Postgres joins them to the run's earlier ones. Proxies new to the change are absent.
     */
    async earlierFirstApplications(changeId: string, stage: string): Promise<Map<string, number>> {
      await planForObservations(tx);
      const result = await tx.db.execute<{ proxy: string; first_us: number }>(sql`
        select p.proxy, (extract(epoch from min(p.at)) * 1000000)::float8 as first_us
        from observations p
        where ${inRunBatches(runId, 'p')} and p.batch_id <> ${batchId}
          and p.run_id = ${runId} and p.change_id = ${changeId}
          and coalesce(p.stage, ${DEFAULT_STAGE}) = ${stage}
          and p.proxy in (select b.proxy from observations b
            where b.batch_id = ${batchId} and b.run_id = ${runId} and b.change_id = ${changeId}
              and coalesce(b.stage, ${DEFAULT_STAGE}) = ${stage})
        group by p.proxy`);
      const rows = rowsOf<{ proxy: string; first_us: unknown }>(result);
      return new Map(rows.map((r) => [r.proxy, Number(r.first_us)]));
    },

    /**
     * The sorted latencies the change's kept summary holds, its blocks put back together.
     * Read by COPY: bytea rows as query results cost the embedded database 40 times as much.
     */
    async keptLatencies(changeId: string, stage: string): Promise<Float64Array> {
      await useChangeStage(changeId, stage);
      const copied = await tx.copyOut(
        `select latencies from latency_blocks where run_id = ${uuidLiteral(runId)}
           and change_id = current_setting('meshbench.change_id')
           and stage = current_setting('meshbench.stage') and clock = 'raw'
           and ${visibleBlocks()} order by block_no`,
      );
      const blocks: Buffer[] = [];
      const reader = new CopyBinaryReader(copied);
      while (reader.next()) blocks.push(reader.bytes() as Buffer);
      return alignedFloat64(blocks);
    },

    /**
     * Writes the change's kept summary at a stage: its blocks given, the summary's earlier
     * blocks removed; or (`staged`) the ones this batch staged ahead of its transaction
     * (stageKept) taken as they are, by pointing the summary at them (blocks_batch): no block
     * row is written or removed, and the batch whose blocks it held before is returned (its
     * blocks, unread from the commit on, to remove after it: dropBlocks).
     */
    async saveSummary(
      changeId: string,
      stage: string,
      s: SummaryToSave,
      staged = false,
    ): Promise<number | undefined> {
      const values = {
        runId,
        changeId,
        stage,
        count: s.count,
        observations: s.observations,
        repeats: s.repeats,
        beforeChange: s.beforeChange,
        minUs: s.minUs,
        maxUs: s.maxUs,
        sumUs: s.sumUs,
        blockSize: s.blockSize,
        blockFirsts: toBytes(s.blockFirsts),
        proxiesFingerprinted: s.proxiesFingerprinted,
        blocksBatch: batchId,
      };
      const key = { runId, changeId, stage, clock: 'raw' as const };
      const [previous] = await tx.db
        .select({ batch: changeSummaries.blocksBatch })
        .from(changeSummaries)
        .where(
          and(
            eq(changeSummaries.runId, runId),
            eq(changeSummaries.changeId, changeId),
            eq(changeSummaries.stage, stage),
            eq(changeSummaries.clock, 'raw'),
          ),
        );
      await upsertSummary(tx, values);
      // Its corrected summary, if any, no longer holds every first application: stale.
      await tx.db
        .update(changeSummaries)
        .set({ clockInputBatch: null })
        .where(
          and(
            eq(changeSummaries.runId, runId),
            eq(changeSummaries.changeId, changeId),
            eq(changeSummaries.stage, stage),
            eq(changeSummaries.clock, 'corrected'),
          ),
        );
      if (staged) return previous?.batch;
      await takeBlocks(tx, key, batchId, previous?.batch, s.blocks);
      return undefined;
    },

    /** Removes the blocks this batch staged for a change at a stage (not to be used). */
    dropStagedBlocks: (changeId: string, stage: string) =>
      deleteLatencyBlocks(tx, { runId, changeId, stage, clock: 'raw' }, batchId),

    /**
     * Stores the batch's first arrivals of a phase's entities where they are the entity's
     * first or earliest, and returns the earlier first arrival (epoch us) of each of those
     * entities that an earlier batch gave: one statement, whose reads see the table as it
     * was before its own insert.
     */
    async mergeLifecycleFirsts(
      phase: string,
      entities: string[],
      firstUs: number[],
    ): Promise<Map<string, number>> {
      const result = await tx.db.execute(sql`
        with incoming as (
          select * from unnest(${sql.param(entities)}::text[], ${sql.param(firstUs)}::float8[])
            as u(entity, first_us)
        ), earlier as (
          select f.entity, ${epochUs(sql`f.first_at`)} as first_us
          from lifecycle_firsts f join incoming i
            on f.run_id = ${runId} and f.phase = ${phase} and f.entity = i.entity
        ), stored as (
          insert into lifecycle_firsts (run_id, phase, entity, first_at)
          select ${runId}, ${phase}, entity, timestamptz 'epoch' + first_us * interval '1 microsecond'
          from incoming
          on conflict (run_id, phase, entity) do update
            set first_at = least(lifecycle_firsts.first_at, excluded.first_at)
        )
        select entity, first_us from earlier`);
      const rows = rowsOf<{ entity: string; first_us: unknown }>(result);
      return new Map(rows.map((r) => [r.entity, Number(r.first_us)]));
    },

    /** A phase's kept first arrivals (sorted epoch us) and largest attrs.total, if any. */
    async keptPhase(
      phase: string,
    ): Promise<{ firstsUs: Float64Array; attrsTotal: number | null } | undefined> {
      const [row] = await tx.db
        .select({ firsts: lifecyclePhases.firsts, attrsTotal: lifecyclePhases.attrsTotal })
        .from(lifecyclePhases)
        .where(and(eq(lifecyclePhases.runId, runId), eq(lifecyclePhases.phase, phase)));
      if (!row) return undefined;
      return { firstsUs: fromFloat8Send(row.firsts), attrsTotal: row.attrsTotal };
    },

    async savePhase(phase: string, firstsUs: Float64Array, attrsTotal: number | null) {
      const values = { entities: firstsUs.length, attrsTotal, firsts: toFloat8Send(firstsUs) };
      await tx.db
        .insert(lifecyclePhases)
        .values({ runId, phase, ...values })
        .onConflictDoUpdate({
          target: [lifecyclePhases.runId, lifecyclePhases.phase],
          set: values,
        });
    },

    /** Makes the batch's staged observations visible as this transaction commits. */
    async unstage(): Promise<void> {
      await tx.db.delete(stagedEventBatches).where(eq(stagedEventBatches.id, batchId));
    },

    async finish(accepted: number, bodySha256: string): Promise<void> {
      await tx.db
        .update(eventBatches)
        .set({ accepted, bodySha256 })
        // By the whole key, run first: the batch is one row of the run's shard.
        .where(and(eq(eventBatches.runId, runId), eq(eventBatches.id, batchId)));
    },
  };
}
export type BatchStore = ReturnType<typeof batchStore>;

export type BatchClaim<T> =
  | { duplicate: false; result: T }
  | { duplicate: true; accepted: number; bodySha256: string };

const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Every event of a run as the NDJSON lines the events API takes: changes first. Within a
 * kind, by time, then by the line's own bytes (collate "C"): the rows have no unique key,
 * but two rows that tie on both give the same line, so the order is total and the export
 * is the same bytes whatever plan reads it (a restored copy, another Postgres).
 */
const EXPORT_QUERY = `
  select line from (
  select 0 as part, at as at_time, json_strip_nulls(json_build_object('type', 'change', 'id', id, 'kind', kind,
    'target', target, 'action', action, 'at', ${iso('at')}, 'expected', expected))::text as line
    from changes where run_id = $1
  union all
  select 1, "from", json_strip_nulls(json_build_object('type', 'incident', 'kind', kind, 'node', node,
    'proxy', proxy, 'from', ${iso('"from"')}, 'to', ${iso('"to"')}, 'attrs', attrs))::text
    from incidents where run_id = $1
  union all
  select 2, at, json_strip_nulls(json_build_object('type', 'lifecycle', 'phase', phase, 'entity', entity,
    'node', node, 'at', ${iso('at')}, 'attrs', attrs))::text
    from lifecycle_events where run_id = $1
  union all
  select 3, at, json_strip_nulls(json_build_object('type', 'observation', 'change', change_id,
    'proxy', proxy, 'node', node, 'at', ${iso('at')}, 'cause', cause, 'stage', stage,
    'attrs', attrs))::text
    from observations where run_id = $1 and $RANGE
  union all
  select 4, at, json_build_object('type', 'clock', 'node', node, 'at', ${iso('at')},
    'offsetMs', offset_us / 1000, 'errorMs', error_us / 1000)::text
    from clock_reports where run_id = $1
  ) as lines
  order by part, at_time, line collate "C"`;

/**
 * A format() string: %L are the run and change ids, quoted by the server. A proxy's rows
 * need only be adjacent, so text is compared bytewise (collate "C"): at 178,000 proxies the
 * sort takes half the time it takes in the database's collation.
 */
const PROXY_STAGES_CURSOR = `declare change_proxy_stages no scroll cursor for
  select proxy collate "C" as proxy, min(node collate "C") as node,
    coalesce(stage, '${DEFAULT_STAGE}') as stage,
    (extract(epoch from min(at)) * 1000000)::float8 as "atUs"
    from observations where run_id = %L::uuid and change_id = %L and $RANGE
    group by 1, 3
    order by 1, 3`;

export function eventsRepository(database: Database) {
  return {
    /**
     * Streams a run's events through a cursor, `rows` lines at a time, to `write`; one
     * transaction, so the export is one consistent snapshot.
     */
    async exportEvents(
      runId: string,
      write: (lines: string) => Promise<void>,
      rows = 5000,
    ): Promise<void> {
      // The id is interpolated (DECLARE takes no parameters here): it must be a UUID.
      if (!isUuid(runId)) {
        throw new Error(`not a run id: ${runId}`);
      }
      await readObservations(database, async (tx) => {
        await tx.db.execute(
          sql.raw(
            `declare run_events no scroll cursor for ${EXPORT_QUERY.replace('$RANGE', inRunBatchesText(runId)).replaceAll('$1', `'${runId}'::uuid`)}`,
          ),
        );
        for (;;) {
          const result = await tx.db.execute<{ line: string }>(
            sql.raw(`fetch ${rows} from run_events`),
          );
          const got = rowsOf<{ line: string }>(result);
          if (got.length === 0) break;
          await write(`${got.map((r) => r.line).join('\n')}\n`);
        }
        await tx.db.execute(sql.raw('close run_events'));
      });
    },

    /**
     * A change's first observation per proxy and stage (no stage is `applied`), in proxy
     * order, through a cursor `rows` at a time: what a trace of the change draws. One
     * transaction, so one snapshot. `stage` is read with coalesce so that rows stored
     * before stages existed read as `applied`.
     */
    async exportProxyStages(
      runId: string,
      changeId: string,
      write: (rows: ProxyStageRow[]) => Promise<void>,
      rows = 5000,
    ): Promise<void> {
      await readObservations(database, async (tx) => {
        // DECLARE takes no parameters: the server quotes the change id itself (%L).
        const statement = await tx.db.execute<{ text: string }>(
          sql`select format(${PROXY_STAGES_CURSOR.replace('$RANGE', inRunBatchesText(runId))}, ${runId}::text, ${changeId}::text) as text`,
        );
        const [declare] = rowsOf<{ text: string }>(statement);
        await tx.db.execute(sql.raw(declare?.text ?? ''));
        for (;;) {
          const result = await tx.db.execute(sql.raw(`fetch ${rows} from change_proxy_stages`));
          const got = rowsOf<ProxyStageRow>(result);
          if (got.length === 0) break;
          for (const r of got) r.atUs = Number(r.atUs);
          await write(got);
        }
        await tx.db.execute(sql.raw('close change_proxy_stages'));
      });
    },

    copyText,

    /** A batch's observations as COPY rows: the sink its decoder writes to. */
    observationRows: (runId: string, batchId: number) => new ObservationRows(runId, batchId),

    /**
     * Summarises the new block ranges of the observation index of each run's partition (the
     * run's own, else the one of the runs stored before 0031; Postgres' autovacuum may too).
     * On the embedded database (one connection) by BRIN_PIECE ranges a statement from the
     * partition's end back, `between()` awaited after each, until a piece finds none new: one
     * statement over a large batch's pages held every read for half a second.
     */
    async summarizeIndex(
      runIds: readonly string[],
      between: () => Promise<void> = async () => {},
    ): Promise<void> {
      for (const runId of new Set(runIds)) {
        const own = runPartitionName('observations', runId);
        const [found] = rowsOf<{ index: string; pages: unknown }>(
          await database.db.execute(
            sql`select i.indexrelid::regclass::text as index,
                (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as pages
              from pg_class c join pg_index i on i.indrelid = c.oid
              where c.relname in (${own}, 'observations_until_0031') and c.relispartition
              order by c.relname = ${own} desc limit 1`,
          ),
        );
        if (!found) continue;
        if (database.kind !== 'embedded') {
          await database.db.execute(
            sql`select brin_summarize_new_values(${found.index}::regclass)`,
          );
          continue;
        }
        const pages = Number(found.pages ?? 0);
        const piece = BRIN_PIECE * BRIN_PAGES_PER_RANGE;
        // The range holding the last page, then the ones before it.
        for (let end = pages; end > 0; end -= piece) {
          const from = Math.max(0, end - piece);
          const result = await database.db.execute(
            sql`select coalesce(sum(brin_summarize_range(${found.index}::regclass, b)), 0)::int as n
              from generate_series(${from}::int8, ${end - 1}::int8, ${BRIN_PAGES_PER_RANGE}::int8) as b`,
          );
          const summarised = Number(rowsOf<{ n: unknown }>(result)[0]?.n ?? 0);
          if (summarised === 0 && end < pages) break;
          await between();
        }
      }
    },

    /** What is kept of these changes before a batch (read outside its transaction). */
    async keptBefore(
      runId: string,
      changeIds: string[],
    ): Promise<{ prior: Map<string, Map<string, PriorSummary>>; changes: StoredChange[] }> {
      return database.transaction(async (tx) => {
        const store = batchStore(tx, runId, 0);
        return {
          prior: await store.priorSummaries(changeIds),
          changes: await store.storedChanges(changeIds),
        };
      });
    },

    /**
     * Writes what a staged batch keeps that is known before its transaction: the blocks of
     * summaries it alone makes (under their key, as the batch's: batch_id, STAGE_BLOCKS a
     * statement) and its proxy fingerprints, `between()` awaited after each statement. No read
     * sees these blocks (visibleBlocks) until the batch's transaction points the summary at
     * them (saveSummary) or drops them, and a batch refused removes them (discardStaged). Fingerprints seen early by another batch only make it
     * check its proxies against the observations, which hide staged rows.
     */
    async stageKept(
      runId: string,
      batchId: number,
      summaries: readonly { changeId: string; stage: string; blocks: readonly Float64Array[] }[],
      fingerprinted: readonly Fingerprinted[],
      between: () => Promise<void>,
    ): Promise<void> {
      for (const { changeId, stage, blocks } of summaries) {
        for (let from = 0; from < blocks.length; from += STAGE_BLOCKS) {
          const rows = latencyBlockRows(
            { runId, changeId, stage, clock: 'raw' },
            batchId,
            blocks,
            from,
            Math.min(blocks.length, from + STAGE_BLOCKS),
          );
          await database.transaction((tx) =>
            tx.copy('latency_blocks', LATENCY_BLOCK_COLUMNS, rows, { format: 'binary' }),
          );
          await between();
        }
      }
      for (const one of fingerprinted) {
        for (let part = 0; part < fingerprintParts(one); part++) {
          const out = new CopyBinaryWriter();
          putFingerprintRow(out, runId, batchId, one, part);
          await database.transaction((tx) =>
            tx.copy('proxy_fingerprints', FINGERPRINT_COLUMNS, out.end(), { format: 'binary' }),
          );
          await between();
        }
      }
    },

    /**
     * Runs `work` on a batch's store in a transaction of its own, ahead of the batch's
     * (reads of what is kept, made again by the batch's transaction if it changed meanwhile).
     */
    aheadOfBatch: <T>(runId: string, batchId: number, work: (store: BatchStore) => Promise<T>) =>
      database.transaction((tx) => work(batchStore(tx, runId, batchId))),

    /**
     * The latencies of the blocks batch `blocksBatch` wrote of a change's raw summary at a
     * stage, READ_BLOCKS a statement with `between()` after each. Blocks are never changed
     * once written, only removed: fewer come back if they went meanwhile.
     */
    async blocksOf(
      runId: string,
      changeId: string,
      stage: string,
      blocksBatch: number,
      between: () => Promise<void>,
    ): Promise<Float64Array> {
      const parts: Buffer[] = [];
      for (let from = 0; ; from += READ_BLOCKS) {
        const copied = await database.transaction(async (tx) => {
          await tx.db.execute(
            sql`select set_config('meshbench.change_id', ${changeId}, true), set_config('meshbench.stage', ${stage}, true)`,
          );
          return tx.copyOut(
            `select latencies from latency_blocks where run_id = ${uuidLiteral(runId)}
               and change_id = current_setting('meshbench.change_id')
               and stage = current_setting('meshbench.stage') and clock = 'raw'
               and batch_id = ${Number(blocksBatch)} and block_no >= ${from}
               and block_no < ${from + READ_BLOCKS} order by block_no`,
          );
        });
        const reader = new CopyBinaryReader(copied);
        let got = 0;
        while (reader.next()) {
          parts.push(reader.bytes() as Buffer);
          got++;
        }
        await between();
        if (got < READ_BLOCKS) break;
      }
      return alignedFloat64(parts);
    },

    /**
     * Removes blocks no summary reads any more (each the blocks a summary held before a
     * staged batch's transaction pointed it at its own), DROP_BLOCKS a statement with
     * `between()` after each.
     */
    async dropBlocks(
      runId: string,
      superseded: readonly { changeId: string; stage: string; batchId: number }[],
      between: () => Promise<void>,
    ): Promise<void> {
      for (const { changeId, stage, batchId } of superseded) {
        for (;;) {
          const result = await database.db.execute(
            sql`with removed as (delete from latency_blocks where run_id = ${runId}
                and ctid = any(array(
                select ctid from latency_blocks where run_id = ${runId} and change_id = ${changeId}
                  and stage = ${stage} and clock = 'raw' and batch_id = ${batchId}
                  limit ${DROP_BLOCKS})) returning 1)
              select count(*)::int as n from removed`,
          );
          const removed = Number(rowsOf<{ n: unknown }>(result)[0]?.n ?? 0);
          await between();
          if (removed < DROP_BLOCKS) break;
        }
      }
    },

    /**
     * Removes the blocks of every summary that no summary reads and no staged batch wrote
     * (a process stopped between a batch's commit and its dropBlocks leaves them), in
     * pieces; the embedded database at start, where no batch is in progress.
     */
    async dropUnusedBlocks(between: () => Promise<void>): Promise<number> {
      // ctids of any run: right only because latency_blocks is one table, not partitioned (a
      // ctid is unique within one partition); ctid-statements.test.ts holds that.
      let total = 0;
      for (;;) {
        const result = await database.db.execute(
          sql.raw(`with removed as (delete from latency_blocks where ctid = any(array(
              select ctid from latency_blocks b where not coalesce(${visibleBlocks('b')}, false)
                and b.batch_id <> all(array(select id from staged_event_batches))
              limit ${DROP_BLOCKS})) returning 1)
            select count(*)::int as n from removed`),
        );
        const removed = Number(rowsOf<{ n: unknown }>(result)[0]?.n ?? 0);
        total += removed;
        if (removed === 0) return total;
        await between();
      }
    },

    /**
     * An id for a batch before its transaction: rows can be made ready (with their batch
     * id) while no transaction is open.
     */
    async reserveBatchId(): Promise<number> {
      const result = await database.db.execute<{ id: unknown }>(
        sql`select nextval(pg_get_serial_sequence('event_batches', 'id'))::float8 as id`,
      );
      const [row] = rowsOf<{ id: unknown }>(result);
      return Number(row?.id);
    },

    /**
     * Stores a batch's observation rows (binary COPY chunks as ObservationRows writes them,
     * each ending at a row's end, header first and trailer last) ahead of its transaction,
     * one chunk per statement and transaction, `between()` awaited after each: on the
     * embedded database (one connection) reads take their turn between the pieces instead of
     * waiting for one long COPY. No read sees the rows until the batch's own transaction
     * calls `unstage()`; a batch refused after this must `discardStaged()`.
     */
    async stageObservations(
      runId: string,
      batchId: number,
      chunks: readonly Uint8Array[],
      between: () => Promise<void>,
    ): Promise<void> {
      await ensureRunPartitions(database.db, [runId], ['observations']);
      await database.db.insert(stagedEventBatches).values({ id: batchId, runId });
      const last = chunks.length - 1;
      for (let i = 0; i <= last; i++) {
        let piece = chunks[i] as Uint8Array;
        if (i === 0) piece = piece.subarray(COPY_BINARY_HEADER.length);
        if (i === last) piece = piece.subarray(0, piece.length - COPY_BINARY_TRAILER.length);
        if (piece.length === 0) continue;
        await database.transaction((tx) =>
          tx.copy(
            'observations',
            OBSERVATION_COLUMNS,
            [COPY_BINARY_HEADER, piece, COPY_BINARY_TRAILER],
            {
              format: 'binary',
            },
          ),
        );
        await between();
      }
    },

    /**
     * Removes a staged batch's rows, DISCARD_ROWS a statement with `between()` after each,
     * then its staged mark (the rows stay invisible until they are all gone).
     */
    async discardStaged(batchId: number, between: () => Promise<void>): Promise<void> {
      const [mark] = await database.db
        .select({ runId: stagedEventBatches.runId })
        .from(stagedEventBatches)
        .where(eq(stagedEventBatches.id, batchId));
      if (mark) {
        // What stageKept wrote: the batch's staged blocks and its fingerprints.
        await database.db.execute(
          sql`delete from latency_blocks where run_id = ${mark.runId} and batch_id = ${batchId}`,
        );
        await between();
        await database.db.execute(
          sql`delete from proxy_fingerprints where run_id = ${mark.runId} and batch_id = ${batchId}`,
        );
        await between();
      }
      // Each statement names the batch (and its run, which prunes to the run's partition)
      // beside the ctids: observations is partitioned by run (0031) and a ctid is unique only
      // within one partition, so ctids alone would delete other runs' rows at the same places.
      const ofBatch = mark
        ? sql`run_id = ${mark.runId} and batch_id = ${batchId}`
        : sql`batch_id = ${batchId}`;
      for (;;) {
        const removed = await readObservations(database, async (tx) => {
          const result = await tx.db.execute(
            sql`with removed as (delete from observations where ${ofBatch} and ctid = any(array(
                select ctid from observations where ${ofBatch} limit ${DISCARD_ROWS}))
                returning 1)
              select count(*)::int as n from removed`,
          );
          return Number(rowsOf<{ n: unknown }>(result)[0]?.n ?? 0);
        });
        if (removed === 0) break;
        await between();
      }
      await database.db.delete(stagedEventBatches).where(eq(stagedEventBatches.id, batchId));
    },

    /** The batches left staged (by a process stopped while it stored them). */
    async stagedBatches(): Promise<number[]> {
      const rows = await database.db.select({ id: stagedEventBatches.id }).from(stagedEventBatches);
      return rows.map((r) => r.id);
    },

    /** Whether the run has a batch under this Idempotency-Key already. */
    async keyTaken(runId: string, idempotencyKey: string): Promise<boolean> {
      const [row] = await database.db
        .select({ id: eventBatches.id })
        .from(eventBatches)
        .where(and(eq(eventBatches.runId, runId), eq(eventBatches.idempotencyKey, idempotencyKey)))
        .limit(1);
      return row !== undefined;
    },

    /** The lines of a source stored on the run, as ranges in order, adjacent ones joined. */
    async storedSourceLines(runId: string, source: string): Promise<[number, number][]> {
      const rows = await database.db
        .select({ first: eventBatches.firstLine, last: eventBatches.lastLine })
        .from(eventBatches)
        .where(
          and(
            eq(eventBatches.runId, runId),
            eq(eventBatches.source, source),
            isNotNull(eventBatches.firstLine),
          ),
        )
        .orderBy(asc(eventBatches.firstLine));
      const ranges: [number, number][] = [];
      for (const { first, last } of rows) {
        const previous = ranges[ranges.length - 1];
        if (previous && (first as number) <= previous[1] + 1)
          previous[1] = Math.max(previous[1], last as number);
        else ranges.push([first as number, last as number]);
      }
      return ranges;
    },

    /**
     * Runs `work` in one transaction after claiming the idempotency key. A key seen before
     * returns the earlier batch instead; a concurrent retry waits for the first to finish.
     */
    async inBatch<T>(
      runId: string,
      claim: BatchKey,
      work: (store: BatchStore) => Promise<T>,
    ): Promise<BatchClaim<T>> {
      // The run's observations partition made first, committed: not held by a long batch.
      await ensureRunPartitions(database.db, [runId], ['observations']);
      // Its first incidents or lifecycle events are known only in the transaction (the body
      // streams into it): on Postgres their partition is made on a connection of its own and
      // committed there, so the parent's lock is not held until this batch commits (another
      // run's first write to the table would wait that long). On the embedded database, whose
      // transactions run one at a time, in the transaction.
      const outside = database.outside;
      const makePartitions: MakePartitions | undefined = outside
        ? (tables) => outside((db) => ensureRunPartitions(db, [runId], tables))
        : undefined;
      return database.transaction(async (tx) => {
        const earlier = await claimBatch(tx, runId, claim);
        if (earlier) return earlier;
        const result = await work(batchStore(tx, runId, claim.batchId, makePartitions));
        await markRunsWritten(tx.db, [runId]);
        return { duplicate: false as const, result };
      });
    },

    /**
     * Several runs' batches in one transaction: all stored or none (an OTLP logs request whose
     * events go to several runs). Claimed and written in run id order, so two such requests
     * take the runs' locks in one order and never each wait for the other.
     */
    async inBatches<T>(
      batches: readonly {
        runId: string;
        claim: BatchKey;
        /** Whether it holds incidents, lifecycle events (read whole before the transaction). */
        holds?: { incidents: boolean; lifecycle: boolean };
      }[],
      work: (index: number, store: BatchStore) => Promise<T>,
      /** Told of each batch whose key was claimed before, in the transaction (may throw). */
      duplicate: (index: number, earlier: { accepted: number; bodySha256: string }) => void,
    ): Promise<BatchClaim<T>[]> {
      const order = batches
        .map((_, i) => i)
        .sort((a, b) => ((batches[a]?.runId ?? '') < (batches[b]?.runId ?? '') ? -1 : 1));
      // Every partition the batches write to made first, committed, in the tables' one order:
      // the transaction holds no parent's lock for them (see inBatch).
      const runsOf = new Map<string, string[]>([['observations', batches.map((b) => b.runId)]]);
      const needs = (table: string, runId: string) =>
        runsOf.set(table, [...(runsOf.get(table) ?? []), runId]);
      for (const { runId, holds } of batches) {
        if (holds?.incidents) needs('incidents', runId);
        if (holds?.lifecycle) needs('lifecycle_events', runId);
      }
      for (const table of RUN_PARTITIONED_TABLES) {
        const runs = runsOf.get(table);
        if (runs) await ensureRunPartitions(database.db, runs, [table]);
      }
      return database.transaction(async (tx) => {
        const out: BatchClaim<T>[] = new Array(batches.length);
        const written: string[] = [];
        for (const i of order) {
          const { runId, claim } = batches[i] as { runId: string; claim: BatchKey };
          const earlier = await claimBatch(tx, runId, claim);
          if (earlier) {
            duplicate(i, earlier);
            out[i] = earlier;
            continue;
          }
          out[i] = {
            duplicate: false as const,
            result: await work(i, batchStore(tx, runId, claim.batchId)),
          };
          written.push(runId);
        }
        if (written.length > 0) await markRunsWritten(tx.db, written);
        return out;
      });
    },
  };
}

export interface BatchKey {
  batchId: number;
  idempotencyKey: string | undefined;
  lines?: SourceLines | undefined;
}

/** Claims a batch's id and idempotency key on the transaction; the earlier batch if the key was. */
async function claimBatch(
  tx: Tx,
  runId: string,
  claim: BatchKey,
): Promise<{ duplicate: true; accepted: number; bodySha256: string } | null> {
  const { batchId, idempotencyKey, lines } = claim;
  const [claimed] = await tx.db
    .insert(eventBatches)
    .overridingSystemValue()
    .values({
      id: batchId,
      runId,
      idempotencyKey: idempotencyKey ?? null,
      bodySha256: '',
      accepted: 0,
      source: lines?.source ?? null,
      firstLine: lines?.first ?? null,
      lastLine: lines?.last ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: eventBatches.id });
  if (claimed) return null;
  const [earlier] = await tx.db
    .select({ accepted: eventBatches.accepted, bodySha256: eventBatches.bodySha256 })
    .from(eventBatches)
    .where(
      and(eq(eventBatches.runId, runId), eq(eventBatches.idempotencyKey, idempotencyKey ?? '')),
    );
  return {
    duplicate: true as const,
    accepted: earlier?.accepted ?? 0,
    bodySha256: earlier?.bodySha256 ?? '',
  };
}
export type EventsRepository = ReturnType<typeof eventsRepository>;
