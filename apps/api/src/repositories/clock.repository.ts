// Node clocks: a run's clock reports, and its changes' corrected summaries (computed from
// the raw first applications and the reports, kept beside the raw ones with clock='corrected').
import { CopyBinaryReader, type Database, isUuid, type Tx, uuidLiteral } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import type { ClockReading, FirstApplication } from '../domain/clock-correction.ts';
import type { SummaryToSave } from './events.repository.ts';
import { lockKey } from './events.repository.ts';
import { replaceLatencyBlocks, upsertSummary } from './latency-blocks.ts';
import {
  inRunBatches,
  inRunBatchesText,
  planForObservations,
  readObservations,
} from './observation-scope.ts';
import { num, numOrNull, rowsOf } from './result-rows.ts';

export interface CorrectedToSave extends Omit<SummaryToSave, 'proxiesFingerprinted'> {
  clockMaxErrorUs: number;
  clockNodes: number;
  uncorrectedNodes: number;
  clockInputBatch: number;
}

/** COPY takes no parameters: texts travel as settings of the transaction. */
async function setting(tx: Tx, name: string, value: string): Promise<string> {
  await tx.db.execute(sql`select set_config(${`meshbench.${name}`}, ${value}, true)`);
  return `current_setting('meshbench.${name}')`;
}

async function reportsOf(tx: Tx, runId: string): Promise<(ClockReading & { node: string })[]> {
  const copied = await tx.copyOut(
    `select node, at, offset_us, error_us from clock_reports where run_id = ${uuidLiteral(runId)}`,
  );
  const out: (ClockReading & { node: string })[] = [];
  const reader = new CopyBinaryReader(copied);
  while (reader.next()) {
    const node = reader.text() as string;
    const atUs = Math.round((reader.timestampMs() as number) * 1000);
    const offsetUs = (reader.bytes() as Buffer).readDoubleBE(0);
    const errorUs = (reader.bytes() as Buffer).readDoubleBE(0);
    out.push({ node, atUs, offsetUs, errorUs });
  }
  return out;
}

function correctionStore(tx: Tx, runId: string, changeId: string, stage: string) {
  return {
    /** The run's largest event batch id: what the summary is computed from. */
    async latestBatch(): Promise<number> {
      const result = await tx.db.execute(
        sql`select max(id)::float8 as id from event_batches where run_id = ${runId}`,
      );
      return num(rowsOf<{ id: unknown }>(result)[0]?.id ?? 0);
    },

    reports: () => reportsOf(tx, runId),

    /**
     * What the run's clock reports are now, in brief: their count and largest batch. Reports
     * are only ever added in batches (under the clock lock this transaction holds), so node
     * clocks built from them while this is unchanged need not be built again.
     */
    async reportsVersion(): Promise<string> {
      const result = await tx.db.execute(sql`
        select count(*)::float8 as n, coalesce(max(batch_id), 0)::float8 as batch
        from clock_reports where run_id = ${runId}`);
      const row = rowsOf<{ n: unknown; batch: unknown }>(result)[0];
      return `${num(row?.n ?? 0)}/${num(row?.batch ?? 0)}`;
    },

    /** The change's time and its raw summary's observation count, as this transaction sees them. */
    async change(): Promise<{ atUs: number; observations: number } | undefined> {
      const result = await tx.db.execute(sql`
        select (extract(epoch from c.at) * 1000000)::float8 as at_us, s.observations
        from changes c left join change_summaries s on s.run_id = c.run_id
          and s.change_id = c.id and s.stage = ${stage} and s.clock = 'raw'
        where c.run_id = ${runId} and c.id = ${changeId}`);
      const row = rowsOf<{ at_us: unknown; observations: unknown }>(result)[0];
      return row ? { atUs: num(row.at_us), observations: num(row.observations ?? 0) } : undefined;
    },

    /**
     * Each proxy's first application of the change and its node, as the raw summary counts
     * it (the earliest observation; at one instant the earliest batch).
     */
    async firstApplications(): Promise<FirstApplication[]> {
      if (!isUuid(runId)) throw new Error(`not a run id: ${runId}`);
      await planForObservations(tx);
      const change = await setting(tx, 'change_id', changeId);
      const st = await setting(tx, 'stage', stage);
      const copied = await tx.copyOut(
        `select distinct on (proxy) node, at from observations
         where ${inRunBatchesText(runId)} and run_id = ${uuidLiteral(runId)}
           and change_id = ${change} and coalesce(stage, 'applied') = ${st}
         order by proxy, at, batch_id`,
      );
      const out: FirstApplication[] = [];
      const reader = new CopyBinaryReader(copied);
      while (reader.next()) {
        const node = reader.text();
        out.push({ node, atUs: Math.round((reader.timestampMs() as number) * 1000) });
      }
      return out;
    },

    async save(s: CorrectedToSave): Promise<void> {
      const values = {
        runId,
        changeId,
        stage,
        clock: 'corrected',
        count: s.count,
        observations: s.observations,
        repeats: s.repeats,
        beforeChange: s.beforeChange,
        minUs: s.minUs,
        maxUs: s.maxUs,
        sumUs: s.sumUs,
        blockSize: s.blockSize,
        blockFirsts: Buffer.from(
          s.blockFirsts.buffer,
          s.blockFirsts.byteOffset,
          s.blockFirsts.byteLength,
        ),
        clockMaxErrorUs: s.clockMaxErrorUs,
        clockNodes: s.clockNodes,
        uncorrectedNodes: s.uncorrectedNodes,
        clockInputBatch: s.clockInputBatch,
        blocksBatch: 0,
      };
      await upsertSummary(tx, values);
      await replaceLatencyBlocks(tx, { runId, changeId, stage, clock: 'corrected' }, s.blocks);
    },
  };
}
export type CorrectionStore = ReturnType<typeof correctionStore>;

export function clockRepository(database: Database) {
  const { db } = database;
  return {
    /**
     * Whether the run has clock reports and, when it does, its largest event batch id (what
     * a corrected summary is stale against): one round trip.
     */
    async clockState(runId: string): Promise<{ hasReports: boolean; latestBatch: number }> {
      const result = await db.execute(sql`
        select exists(select 1 from clock_reports where run_id = ${runId}) as has,
          (select max(id) from event_batches where run_id = ${runId})::float8 as latest`);
      const row = rowsOf<{ has: boolean; latest: unknown }>(result)[0];
      return { hasReports: row?.has === true, latestBatch: num(row?.latest ?? 0) };
    },

    /** `clockState` of each run, in one round trip. */
    async clockStates(
      runIds: string[],
    ): Promise<Map<string, { hasReports: boolean; latestBatch: number }>> {
      if (runIds.length === 0) return new Map();
      const ids = sql.join(
        runIds.map((id) => sql`${id}::uuid`),
        sql`, `,
      );
      const result = await db.execute(sql`
        select r.id::text as id,
          exists(select 1 from clock_reports c where c.run_id = r.id) as has,
          (select max(b.id) from event_batches b where b.run_id = r.id)::float8 as latest
        from unnest(array[${ids}]) as r(id)`);
      return new Map(
        rowsOf<{ id: string; has: boolean; latest: unknown }>(result).map((row) => [
          row.id,
          { hasReports: row.has === true, latestBatch: num(row.latest ?? 0) },
        ]),
      );
    },

    /**
     * Runs `work` in one transaction holding the run's clock lock and the change's lock (the
     * ones a batch takes, in the same order): no batch changes what it reads meanwhile.
     */
    inCorrection<T>(
      runId: string,
      changeId: string,
      stage: string,
      work: (store: CorrectionStore) => Promise<T>,
    ): Promise<T> {
      return database.transaction(async (tx) => {
        await tx.db.execute(
          sql`select pg_advisory_xact_lock(${String(lockKey(runId, 'clocks', ''))}::int8)`,
        );
        await tx.db.execute(
          sql`select pg_advisory_xact_lock(${String(lockKey(runId, 'change', changeId))}::int8)`,
        );
        return work(correctionStore(tx, runId, changeId, stage));
      });
    },

    /**
     * Runs with clock reports of which some change's corrected summary is missing or older
     * than the run's latest batch: what the background worker corrects.
     */
    async staleCorrections(limit: number): Promise<string[]> {
      const result = await db.execute(sql`
        select distinct s.run_id from change_summaries s
         where s.clock = 'raw'
           and exists (select 1 from clock_reports r where r.run_id = s.run_id)
           and not exists (
             select 1 from change_summaries c
              where c.run_id = s.run_id and c.change_id = s.change_id and c.stage = s.stage
                and c.clock = 'corrected'
                and c.clock_input_batch >= (select max(id) from event_batches b where b.run_id = s.run_id))
         limit ${limit}`);
      return rowsOf<{ run_id: string }>(result).map((r) => r.run_id);
    },
    /** The run's clock reports (every node's), as the corrected summaries read them. */
    readings(runId: string): Promise<(ClockReading & { node: string })[]> {
      return database.transaction((tx) => reportsOf(tx, runId));
    },

    /** Per node with reports: how many, the offsets' range and the largest error (us). */
    async nodeReports(runId: string) {
      const result = await db.execute(sql`
        select node, count(*)::int as reports, min(offset_us) as min_offset_us,
          max(offset_us) as max_offset_us, max(error_us) as max_error_us,
          (extract(epoch from min(at)) * 1000000)::float8 as first_us,
          (extract(epoch from max(at)) * 1000000)::float8 as last_us
        from clock_reports where run_id = ${runId} group by node order by node`);
      return rowsOf<Record<string, unknown>>(result).map((r) => ({
        node: r.node as string,
        reports: num(r.reports),
        minOffsetUs: num(r.min_offset_us),
        maxOffsetUs: num(r.max_offset_us),
        maxErrorUs: num(r.max_error_us),
        firstUs: num(r.first_us),
        lastUs: num(r.last_us),
      }));
    },

    /**
     * Per node, its observation furthest before its change: a proxy cannot apply a change
     * before it is made, so the node's clock was behind by at least that much (raw times).
     */
    async provablyBehind(runId: string) {
      const result = await readObservations(database, (tx) =>
        tx.db.execute(sql`
          select distinct on (o.node) o.node, o.change_id, o.proxy,
            ((extract(epoch from c.at) - extract(epoch from o.at)) * 1000000)::float8 as behind_us,
            (extract(epoch from o.at) * 1000000)::float8 as at_us
          from observations o
          join changes c on c.run_id = o.run_id and c.id = o.change_id
          where ${inRunBatches(runId, 'o')}
            and o.run_id = ${runId} and o.node is not null and o.at < c.at
          order by o.node, o.at - c.at, o.proxy`),
      );
      return rowsOf<Record<string, unknown>>(result).map((r) => ({
        node: r.node as string,
        change: r.change_id as string,
        proxy: r.proxy as string,
        behindUs: num(r.behind_us),
        atUs: numOrNull(r.at_us),
      }));
    },
  };
}
export type ClockRepository = ReturnType<typeof clockRepository>;
