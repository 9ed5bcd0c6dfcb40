import { describe, expect, it } from 'vitest';
import { keptSummary, LATENCY_BLOCK_SIZE } from './kept-summary.ts';

describe('keptSummary', () => {
  it('keeps the counts, extremes and sum, and the sorted latencies in blocks with their firsts', () => {
    const sorted = new Float64Array([10, 20, 30, 40, 50]);
    const k = keptSummary({ sorted, observations: 7, repeats: 2, beforeChange: 1, sumUs: 150 }, 2);
    expect(k.count).toBe(5);
    expect(k.observations).toBe(7);
    expect(k.repeats).toBe(2);
    expect(k.beforeChange).toBe(1);
    expect(k.minUs).toBe(10);
    expect(k.maxUs).toBe(50);
    expect(k.sumUs).toBe(150);
    expect(k.blockSize).toBe(2);
    expect(k.blocks.map((b) => [...b])).toEqual([[10, 20], [30, 40], [50]]);
    expect([...k.blockFirsts]).toEqual([10, 30, 50]);
  });

  it('has no extremes and no block without a latency, and 1,024 latencies a block by default', () => {
    const empty = keptSummary({
      sorted: new Float64Array(0),
      observations: 3,
      repeats: 3,
      beforeChange: 0,
      sumUs: 0,
    });
    expect(empty).toMatchObject({ count: 0, minUs: null, maxUs: null, blocks: [] });
    expect(empty.blockSize).toBe(1024);
    expect(LATENCY_BLOCK_SIZE).toBe(1024);
    const sorted = Float64Array.from({ length: 1025 }, (_, i) => i);
    const k = keptSummary({ sorted, observations: 1025, repeats: 0, beforeChange: 0, sumUs: 0 });
    expect(k.blocks.map((b) => b.length)).toEqual([1024, 1]);
    expect([...k.blockFirsts]).toEqual([0, 1024]);
  });
});
