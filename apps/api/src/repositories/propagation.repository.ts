// Reads of a change and its kept summaries (one per stage); never the observations themselves.
import {
  CopyBinaryReader,
  type Database,
  type Db,
  DEFAULT_STAGE,
  tables,
  uuidLiteral,
} from '@meshbench/db';
import { and, asc, eq, gt, inArray, or, sql } from 'drizzle-orm';
import { epochUs } from './epoch.ts';
import { visibleBlocks } from './latency-blocks.ts';
import { groupRows } from './result-rows.ts';

const { changes, changeSummaries, latencyBlocks } = tables;

/** The stage of an observation that names none (what services default to). */
export { DEFAULT_STAGE };

export const toFloat64 = (bytes: Uint8Array): Float64Array => {
  // Copied so the view is 8-byte aligned whatever the driver's buffer offset.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float64Array(copy.buffer);
};

/** Blocks of one change, in block order, put back together as one aligned array. */
function joinBlocks(parts: Buffer[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0) / 8);
  const bytes = new Uint8Array(out.buffer);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return out;
}

/** A change's kept summary row at a stage on one clock: what a change is joined to. */
const summaryOf = (stage: string, clock: 'raw' | 'corrected') =>
  and(
    eq(changeSummaries.runId, changes.runId),
    eq(changeSummaries.changeId, changes.id),
    eq(changeSummaries.stage, stage),
    eq(changeSummaries.clock, clock),
  );

/** What a change's kept summary row is read as. */
const summaryColumns = {
  count: changeSummaries.count,
  observations: changeSummaries.observations,
  repeats: changeSummaries.repeats,
  beforeChange: changeSummaries.beforeChange,
  minUs: changeSummaries.minUs,
  maxUs: changeSummaries.maxUs,
  sumUs: changeSummaries.sumUs,
  blockSize: changeSummaries.blockSize,
  blockFirsts: changeSummaries.blockFirsts,
  computedAtUs: epochUs(changeSummaries.computedAt),
  clockMaxErrorUs: changeSummaries.clockMaxErrorUs,
  clockNodes: changeSummaries.clockNodes,
  uncorrectedNodes: changeSummaries.uncorrectedNodes,
  clockInputBatch: changeSummaries.clockInputBatch,
};

/** A change's columns as every read of changes returns them. */
const CHANGE_COLUMNS = {
  id: changes.id,
  kind: changes.kind,
  target: changes.target,
  action: changes.action,
  atUs: epochUs(changes.at),
  expected: changes.expected,
};

export function propagationRepository(database: Pick<Database, 'db' | 'transaction'>) {
  const db: Db = database.db;
  const changeColumns = CHANGE_COLUMNS;
  return {
    /** Every change of a run with its kept summary of one stage (raw clock), by change time. */
    async changesWithStage(runId: string, stage: string) {
      return db
        .select({
          ...changeColumns,
          count: changeSummaries.count,
          minUs: changeSummaries.minUs,
          maxUs: changeSummaries.maxUs,
        })
        .from(changes)
        .leftJoin(changeSummaries, summaryOf(stage, 'raw'))
        .where(eq(changes.runId, runId))
        .orderBy(asc(changes.at), asc(changes.id));
    },

    /**
     * Every kept latency block of a run's changes for one stage (raw clock), each change's
     * blocks joined into its sorted first-application latencies (us). One COPY for the run:
     * bytea rows as query results cost the embedded database 40 times as much.
     */
    async runLatencies(runId: string, stage: string): Promise<Map<string, Float64Array>> {
      const parts = await database.transaction(async (tx) => {
        // COPY takes no parameters: the stage travels as a setting of this transaction.
        await tx.db.execute(sql`select set_config('meshbench.stage', ${stage}, true)`);
        return tx.copyOut(
          `select change_id, latencies from latency_blocks where run_id = ${uuidLiteral(runId)}
             and stage = current_setting('meshbench.stage') and clock = 'raw'
             and ${visibleBlocks()} order by change_id, block_no`,
        );
      });
      const byChange = new Map<string, Buffer[]>();
      const reader = new CopyBinaryReader(parts);
      while (reader.next()) {
        const changeId = reader.text() as string;
        const block = reader.bytes() as Buffer;
        const list = byChange.get(changeId);
        if (list) list.push(block);
        else byChange.set(changeId, [block]);
      }
      return new Map([...byChange].map(([id, blocks]) => [id, joinBlocks(blocks)]));
    },

    async changesOf(runId: string) {
      return db
        .select({
          ...changeColumns,
          count: changeSummaries.count,
          repeats: changeSummaries.repeats,
          beforeChange: changeSummaries.beforeChange,
        })
        .from(changes)
        .leftJoin(changeSummaries, summaryOf(DEFAULT_STAGE, 'raw'))
        .where(eq(changes.runId, runId))
        .orderBy(asc(changes.at), asc(changes.id));
    },

    /** The stages each change of the run was observed at (kept summaries with observations). */
    async stagesOf(runId: string, changeId?: string) {
      return db
        .select({
          changeId: changeSummaries.changeId,
          stage: changeSummaries.stage,
          count: changeSummaries.count,
          observations: changeSummaries.observations,
        })
        .from(changeSummaries)
        .where(
          and(
            eq(changeSummaries.runId, runId),
            changeId === undefined ? undefined : eq(changeSummaries.changeId, changeId),
            eq(changeSummaries.clock, 'raw'),
            gt(changeSummaries.observations, 0),
          ),
        );
    },

    /** A change and its kept summary at a stage, on the raw or the corrected clock. */
    async changeWithSummary(
      runId: string,
      changeId: string,
      clock: 'raw' | 'corrected' = 'raw',
      stage: string = DEFAULT_STAGE,
    ) {
      const [row] = await db
        .select({
          change: changeColumns,
          summary: summaryColumns,
        })
        .from(changes)
        .leftJoin(changeSummaries, summaryOf(stage, clock))
        .where(and(eq(changes.runId, runId), eq(changes.id, changeId)));
      return row;
    },

    async blocks(
      runId: string,
      changeId: string,
      blockNos: number[],
      clock: 'raw' | 'corrected' = 'raw',
      stage: string = DEFAULT_STAGE,
    ): Promise<Map<number, Float64Array>> {
      if (blockNos.length === 0) return new Map();
      const rows = await db
        .select({ blockNo: latencyBlocks.blockNo, latencies: latencyBlocks.latencies })
        .from(latencyBlocks)
        .where(
          and(
            eq(latencyBlocks.runId, runId),
            eq(latencyBlocks.changeId, changeId),
            eq(latencyBlocks.stage, stage),
            eq(latencyBlocks.clock, clock),
            inArray(latencyBlocks.blockNo, blockNos),
            sql.raw(visibleBlocks()),
          ),
        );
      return new Map(rows.map((r) => [r.blockNo, toFloat64(r.latencies)]));
    },
  };
}
export type PropagationRepository = ReturnType<typeof propagationRepository>;

/** A change's kept summary asked for at a stage on one clock. */
export interface SummaryKey {
  runId: string;
  changeId: string;
  clock: 'raw' | 'corrected';
  stage: string;
}

/**
 * The reads of `propagationRepository` for many runs at once, each one query (one per stage
 * for those that take a stage: the headlines ask one), answered by run (or by the key asked).
 */
export function propagationOfRuns(database: Pick<Database, 'db' | 'transaction'>) {
  const db: Db = database.db;
  const changeColumns = { runId: changes.runId, ...CHANGE_COLUMNS };
  const strip = <T extends { runId: string }>({ runId: _runId, ...rest }: T) => rest;
  const byRun = <T extends { runId: string }>(rows: T[]) =>
    new Map([...groupRows(rows, (r) => r.runId)].map(([id, list]) => [id, list.map(strip)]));
  const byStage = <K extends { stage: string }>(keys: K[]) => groupRows(keys, (k) => k.stage);
  return {
    /** `changesOf` of each run. */
    async changesOf(runIds: string[]) {
      const rows = await db
        .select({
          ...changeColumns,
          count: changeSummaries.count,
          repeats: changeSummaries.repeats,
          beforeChange: changeSummaries.beforeChange,
        })
        .from(changes)
        .leftJoin(changeSummaries, summaryOf(DEFAULT_STAGE, 'raw'))
        .where(inArray(changes.runId, runIds))
        .orderBy(asc(changes.at), asc(changes.id));
      return byRun(rows);
    },

    /** `stagesOf` of each run (every change). */
    async stagesOf(runIds: string[]) {
      const rows = await db
        .select({
          runId: changeSummaries.runId,
          changeId: changeSummaries.changeId,
          stage: changeSummaries.stage,
          count: changeSummaries.count,
          observations: changeSummaries.observations,
        })
        .from(changeSummaries)
        .where(
          and(
            inArray(changeSummaries.runId, runIds),
            eq(changeSummaries.clock, 'raw'),
            gt(changeSummaries.observations, 0),
          ),
        );
      return byRun(rows);
    },

    /** `changesWithStage` of each run at a stage, by `${runId} ${stage}`. */
    async changesWithStage(keys: { runId: string; stage: string }[]) {
      const out = new Map<string, Awaited<ReturnType<PropagationRepository['changesWithStage']>>>();
      for (const [stage, asked] of byStage(keys)) {
        const rows = await db
          .select({
            ...changeColumns,
            count: changeSummaries.count,
            minUs: changeSummaries.minUs,
            maxUs: changeSummaries.maxUs,
          })
          .from(changes)
          .leftJoin(changeSummaries, summaryOf(stage, 'raw'))
          .where(
            inArray(
              changes.runId,
              asked.map((k) => k.runId),
            ),
          )
          .orderBy(asc(changes.at), asc(changes.id));
        for (const k of asked) out.set(`${k.runId} ${stage}`, []);
        for (const [runId, list] of byRun(rows)) out.set(`${runId} ${stage}`, list);
      }
      return out;
    },

    /**
     * `runLatencies` of each run at a stage, by `${runId} ${stage}`: one COPY per stage for
     * every run asked.
     */
    async runLatencies(keys: { runId: string; stage: string }[]) {
      const out = new Map<string, Map<string, Float64Array>>();
      for (const [stage, asked] of byStage(keys)) {
        const ids = asked.map((k) => uuidLiteral(k.runId)).join(', ');
        const parts = await database.transaction(async (tx) => {
          await tx.db.execute(sql`select set_config('meshbench.stage', ${stage}, true)`);
          return tx.copyOut(
            `select run_id::text, change_id, latencies from latency_blocks
               where run_id = any(array[${ids}]::uuid[])
               and stage = current_setting('meshbench.stage') and clock = 'raw'
               and ${visibleBlocks()} order by run_id, change_id, block_no`,
          );
        });
        const byChange = new Map<string, Map<string, Buffer[]>>();
        for (const k of asked) byChange.set(k.runId, new Map());
        const reader = new CopyBinaryReader(parts);
        while (reader.next()) {
          const runId = reader.text() as string;
          const changeId = reader.text() as string;
          const block = reader.bytes() as Buffer;
          const ofRun = byChange.get(runId) ?? new Map<string, Buffer[]>();
          byChange.set(runId, ofRun);
          const list = ofRun.get(changeId);
          if (list) list.push(block);
          else ofRun.set(changeId, [block]);
        }
        for (const [runId, ofRun] of byChange)
          out.set(
            `${runId} ${stage}`,
            new Map([...ofRun].map(([id, blocks]) => [id, joinBlocks(blocks)])),
          );
      }
      return out;
    },

    /** `changeWithSummary` of each key, by `summaryKeyText`. */
    async changeWithSummary(keys: SummaryKey[]) {
      const out = new Map<
        string,
        Awaited<ReturnType<PropagationRepository['changeWithSummary']>>
      >();
      if (keys.length === 0) return out;
      const rows = await db
        .select({
          summaryStage: changeSummaries.stage,
          summaryClock: changeSummaries.clock,
          change: { ...changeColumns },
          summary: summaryColumns,
        })
        .from(changes)
        .leftJoin(
          changeSummaries,
          and(
            eq(changeSummaries.runId, changes.runId),
            eq(changeSummaries.changeId, changes.id),
            or(
              ...keys.map((k) =>
                and(
                  eq(changes.runId, k.runId),
                  eq(changes.id, k.changeId),
                  eq(changeSummaries.stage, k.stage),
                  eq(changeSummaries.clock, k.clock),
                ),
              ),
            ),
          ),
        )
        .where(or(...keys.map((k) => and(eq(changes.runId, k.runId), eq(changes.id, k.changeId)))));
      for (const k of keys) {
        const ofChange = rows.filter(
          (r) => r.change.runId === k.runId && r.change.id === k.changeId,
        );
        const row =
          ofChange.find((r) => r.summaryStage === k.stage && r.summaryClock === k.clock) ??
          ofChange.find((r) => r.summary === null);
        if (!row) continue;
        out.set(summaryKeyText(k), {
          change: strip(row.change),
          summary:
            row.summaryStage === k.stage && row.summaryClock === k.clock ? row.summary : null,
        });
      }
      return out;
    },

    /** `blocks` of each key, by `summaryKeyText` (the blocks asked for by any call of it). */
    async blocks(keys: (SummaryKey & { blockNos: number[] })[]) {
      const out = new Map<string, Map<number, Float64Array>>();
      const asked = keys.filter((k) => k.blockNos.length > 0);
      for (const k of keys) out.set(summaryKeyText(k), new Map());
      if (asked.length === 0) return out;
      const rows = await db
        .select({
          runId: latencyBlocks.runId,
          changeId: latencyBlocks.changeId,
          stage: latencyBlocks.stage,
          clock: latencyBlocks.clock,
          blockNo: latencyBlocks.blockNo,
          latencies: latencyBlocks.latencies,
        })
        .from(latencyBlocks)
        .where(
          and(
            or(
              ...asked.map((k) =>
                and(
                  eq(latencyBlocks.runId, k.runId),
                  eq(latencyBlocks.changeId, k.changeId),
                  eq(latencyBlocks.stage, k.stage),
                  eq(latencyBlocks.clock, k.clock),
                  inArray(latencyBlocks.blockNo, k.blockNos),
                ),
              ),
            ),
            sql.raw(visibleBlocks()),
          ),
        );
      for (const r of rows) {
        const key = summaryKeyText({
          runId: r.runId,
          changeId: r.changeId,
          stage: r.stage,
          clock: r.clock as SummaryKey['clock'],
        });
        out.get(key)?.set(r.blockNo, toFloat64(r.latencies));
      }
      return out;
    },
  };
}

/** A summary key as one text (what the batched reads answer by). */
export const summaryKeyText = (k: SummaryKey) =>
  JSON.stringify([k.runId, k.changeId, k.clock, k.stage]);
