// Reads of a change and its kept summaries (one per stage); never the observations themselves.
import {
  CopyBinaryReader,
  type Database,
  type Db,
  DEFAULT_STAGE,
  tables,
  uuidLiteral,
} from '@meshbench/db';
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { epochUs } from './epoch.ts';
import { visibleBlocks } from './latency-blocks.ts';

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

export function propagationRepository(database: Pick<Database, 'db' | 'transaction'>) {
  const db: Db = database.db;
  const changeColumns = {
    id: changes.id,
    kind: changes.kind,
    target: changes.target,
    action: changes.action,
    atUs: epochUs(changes.at),
    expected: changes.expected,
  };
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
          summary: {
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
          },
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
