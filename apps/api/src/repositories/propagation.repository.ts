// Reads of a change and its kept summary; never the observations themselves.
import { type Db, DEFAULT_STAGE, tables } from '@meshbench/db';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { epochUs } from './epoch.ts';

const { changes, changeSummaries, latencyBlocks } = tables;

export const toFloat64 = (bytes: Uint8Array): Float64Array => {
  // Copied so the view is 8-byte aligned whatever the driver's buffer offset.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float64Array(copy.buffer);
};

export function propagationRepository(db: Db) {
  const changeColumns = {
    id: changes.id,
    kind: changes.kind,
    target: changes.target,
    action: changes.action,
    atUs: epochUs(changes.at),
    expected: changes.expected,
  };
  return {
    async changesOf(runId: string) {
      return db
        .select({
          ...changeColumns,
          count: changeSummaries.count,
          repeats: changeSummaries.repeats,
          beforeChange: changeSummaries.beforeChange,
        })
        .from(changes)
        .leftJoin(
          changeSummaries,
          and(
            eq(changeSummaries.runId, changes.runId),
            eq(changeSummaries.changeId, changes.id),
            eq(changeSummaries.stage, DEFAULT_STAGE),
            eq(changeSummaries.clock, 'raw'),
          ),
        )
        .where(eq(changes.runId, runId))
        .orderBy(asc(changes.at), asc(changes.id));
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
        .leftJoin(
          changeSummaries,
          and(
            eq(changeSummaries.runId, changes.runId),
            eq(changeSummaries.changeId, changes.id),
            eq(changeSummaries.stage, stage),
            eq(changeSummaries.clock, clock),
          ),
        )
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
          ),
        );
      return new Map(rows.map((r) => [r.blockNo, toFloat64(r.latencies)]));
    },
  };
}
export type PropagationRepository = ReturnType<typeof propagationRepository>;
