// A kept summary's row, and its sorted latencies written as its blocks (float64 LE, microseconds) by
// binary COPY: bytea parameters cost the embedded database 5 times as much. One writer for
// the raw summaries a batch keeps and the clock-corrected ones computed from them.
import {
  CopyBinaryWriter,
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
  'block_no',
  'latencies',
];

/** Which blocks a row of latency_blocks is: a summary's, on a clock (or staged: see stagedClock). */
export interface BlocksKey {
  runId: string;
  changeId: string;
  stage: string;
  clock: 'raw' | 'corrected' | `staged:${number}`;
}

/**
 * The clock a batch's raw blocks are written under ahead of its transaction (the embedded
 * database): no read asks for it, and the batch's transaction renames it `raw`.
 */
export const stagedClock = (batchId: number): `staged:${number}` => `staged:${batchId}`;

/** Blocks `from` to `to` (numbered from 0) as one binary COPY's data. */
export function latencyBlockRows(
  key: BlocksKey,
  blocks: readonly Float64Array[],
  from = 0,
  to = blocks.length,
): Uint8Array[] {
  const { runId, changeId, stage, clock } = key;
  const out = new CopyBinaryWriter();
  const run = uuidField(runId);
  const texts = [changeId, stage, clock].map((t) => Buffer.from(t));
  const textBytes = texts.reduce((n, t) => n + 4 + t.length, 0);
  for (let i = from; i < to; i++) {
    const b = blocks[i] as Float64Array;
    const block = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    out.room(2 + run.length + textBytes + 8 + 4 + block.length);
    out.pos = putInt16(out.buf, out.pos, LATENCY_BLOCK_COLUMNS.length);
    out.bytes(run);
    for (const t of texts) out.field(t);
    out.pos = putInt4Field(out.buf, out.pos, i);
    out.field(block);
  }
  return out.end();
}

/** Removes the blocks of a change's summary at a stage, on one clock. */
export async function deleteLatencyBlocks(tx: Tx, key: BlocksKey): Promise<void> {
  const { runId, changeId, stage, clock } = key;
  await tx.db
    .delete(latencyBlocks)
    .where(
      and(
        eq(latencyBlocks.runId, runId),
        eq(latencyBlocks.changeId, changeId),
        eq(latencyBlocks.stage, stage),
        eq(latencyBlocks.clock, clock),
      ),
    );
}

/** Replaces the blocks of a change's summary at a stage, on the raw or the corrected clock. */
export async function replaceLatencyBlocks(
  tx: Tx,
  key: BlocksKey & { clock: 'raw' | 'corrected' },
  blocks: readonly Float64Array[],
): Promise<void> {
  await deleteLatencyBlocks(tx, key);
  await tx.copy('latency_blocks', LATENCY_BLOCK_COLUMNS, latencyBlockRows(key, blocks), {
    format: 'binary',
  });
}

/** Makes the raw blocks a batch staged (stagedClock) the summary's, in place of its old ones. */
export async function takeStagedBlocks(
  tx: Tx,
  key: Omit<BlocksKey, 'clock'>,
  batchId: number,
): Promise<void> {
  const { runId, changeId, stage } = key;
  await deleteLatencyBlocks(tx, { ...key, clock: 'raw' });
  // The blocks' bytes stay where they are (stored out of line): only the key changes.
  await tx.db
    .update(latencyBlocks)
    .set({ clock: 'raw' })
    .where(
      and(
        eq(latencyBlocks.runId, runId),
        eq(latencyBlocks.changeId, changeId),
        eq(latencyBlocks.stage, stage),
        eq(latencyBlocks.clock, stagedClock(batchId)),
      ),
    );
}
