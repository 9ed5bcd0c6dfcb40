// A change's kept summary, built once from its latency set: the counts, the extremes, the sum
// and the sorted latencies in blocks with each block's first value (what reads rank into
// without loading every block). The raw summary a batch keeps and the clock-corrected one
// are both built here; the repositories only store it.
import type { LatencySet } from './first-applications.ts';
import { splitBlocks } from './sorted-latencies.ts';

/** Latencies per stored block: 8 KiB of float64. */
export const LATENCY_BLOCK_SIZE = 1024;

export interface KeptSummary {
  count: number;
  observations: number;
  repeats: number;
  beforeChange: number;
  minUs: number | null;
  maxUs: number | null;
  sumUs: number;
  blockSize: number;
  blockFirsts: Float64Array;
  blocks: Float64Array[];
}

export function keptSummary(set: LatencySet, blockSize = LATENCY_BLOCK_SIZE): KeptSummary {
  const blocks = splitBlocks(set.sorted, blockSize);
  const n = set.sorted.length;
  return {
    count: n,
    observations: set.observations,
    repeats: set.repeats,
    beforeChange: set.beforeChange,
    minUs: n > 0 ? (set.sorted[0] as number) : null,
    maxUs: n > 0 ? (set.sorted[n - 1] as number) : null,
    sumUs: set.sumUs,
    blockSize,
    blockFirsts: new Float64Array(blocks.map((b) => b[0] as number)),
    blocks,
  };
}
