// A kept summary's row, and its sorted latencies written as its blocks (float64 LE, microseconds) by
// binary COPY: bytea parameters cost the embedded database 5 times as much. One writer for
// the raw summaries a batch keeps and the clock-corrected ones computed from them.
import {
  CopyBinaryWriter,
  int64Field,
  putInt4Field,
  putInt16,
  type Tx,
  tables,
  uuidField,
} from '@meshbench/db';
import { and, eq, sql } from 'drizzle-orm';

const { changeSummaries, latencyBlocks } = tables;

/** Writes (or rewrites) a change's kept summary row at a stage, on one clock. */
export async function upsertSummary(
  tx: Tx,
  row: Omit<typeof changeSummaries.$inferInsert, 'computedAt'>,
): Promise<void> {
  const values = { ...row, computedAt: sql`now()` };
  await tx.db
    .insert(changeSummaries)
    .values(values)
    .onConflictDoUpdate({
      target: [
        changeSummaries.runId,
        changeSummaries.changeId,
        changeSummaries.stage,
        changeSummaries.clock,
      ],
      set: values,
    });
}
export const LATENCY_BLOCK_COLUMNS = [
  'run_id',
  'change_id',
  'stage',
  'clock',
  'batch_id',
  'block_no',
  'latencies',
];

/** Which blocks a row of latency_blocks is: a summary's, on a clock. */
export interface BlocksKey {
  runId: string;
  changeId: string;
  stage: string;
  clock: 'raw' | 'corrected';
}

/**
 * The condition (SQL text) a row of latency_blocks, named `t`, meets when it is its summary's
 * blocks: its batch_id is the summary's blocks_batch. Every read of blocks asks it, so that
 * blocks a batch writes ahead of its transaction (stageKept) stay unseen until that
 * transaction points its summary at them, and its commit alone makes them read.
 */
export const visibleBlocks = (t = 'latency_blocks') =>
  `${t}.batch_id = (select s.blocks_batch from change_summaries s where s.run_id = ${t}.run_id
    and s.change_id = ${t}.change_id and s.stage = ${t}.stage and s.clock = ${t}.clock)`;

/** Blocks `from` to `to` (numbered from 0), written by `batchId`, as one binary COPY's data. */
export function latencyBlockRows(
  key: BlocksKey,
  batchId: number,
  blocks: readonly Float64Array[],
  from = 0,
  to = blocks.length,
): Uint8Array[] {
  const { runId, changeId, stage, clock } = key;
  const out = new CopyBinaryWriter();
  const run = uuidField(runId);
  const batch = int64Field(batchId);
  const texts = [changeId, stage, clock].map((t) => Buffer.from(t));
  const textBytes = texts.reduce((n, t) => n + 4 + t.length, 0);
  for (let i = from; i < to; i++) {
    const b = blocks[i] as Float64Array;
    const block = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    out.room(2 + run.length + textBytes + batch.length + 8 + 4 + block.length);
    out.pos = putInt16(out.buf, out.pos, LATENCY_BLOCK_COLUMNS.length);
    out.bytes(run);
    for (const t of texts) out.field(t);
    out.bytes(batch);
    out.pos = putInt4Field(out.buf, out.pos, i);
    out.field(block);
  }
  return out.end();
}

/** Removes the blocks under a key that a batch wrote (all of them when `batchId` is absent). */
export async function deleteLatencyBlocks(tx: Tx, key: BlocksKey, batchId?: number): Promise<void> {
  const { runId, changeId, stage, clock } = key;
  await tx.db
    .delete(latencyBlocks)
    .where(
      and(
        eq(latencyBlocks.runId, runId),
        eq(latencyBlocks.changeId, changeId),
        eq(latencyBlocks.stage, stage),
        eq(latencyBlocks.clock, clock),
        batchId === undefined ? undefined : eq(latencyBlocks.batchId, batchId),
      ),
    );
}

/**
 * Replaces every block of a change's summary at a stage on the corrected clock (never
 * staged: its blocks are batch 0, as its summary's blocks_batch).
 */
export async function replaceLatencyBlocks(
  tx: Tx,
  key: BlocksKey,
  blocks: readonly Float64Array[],
): Promise<void> {
  await deleteLatencyBlocks(tx, key);
  await tx.copy('latency_blocks', LATENCY_BLOCK_COLUMNS, latencyBlockRows(key, 0, blocks), {
    format: 'binary',
  });
}

/**
 * Points a raw summary (written just before, blocks_batch `batchId`) at blocks `batchId`
 * wrote: the given ones, written now, or (no `blocks`) the ones it staged ahead of its
 * transaction, taken as they are: no block row is written. The blocks it pointed at before
 * (`previous`, its blocks_batch) are removed.
 */
export async function takeBlocks(
  tx: Tx,
  key: BlocksKey,
  batchId: number,
  previous: number | undefined,
  blocks?: readonly Float64Array[],
): Promise<void> {
  if (previous !== undefined && previous !== batchId) await deleteLatencyBlocks(tx, key, previous);
  if (!blocks) return;
  await deleteLatencyBlocks(tx, key, batchId);
  await tx.copy('latency_blocks', LATENCY_BLOCK_COLUMNS, latencyBlockRows(key, batchId, blocks), {
    format: 'binary',
  });
}
