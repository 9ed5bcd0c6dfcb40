import { describe, expect, it } from 'vitest';
import { differenceOf } from './compare-significance.service.ts';

const sorted = (xs: number[]) => Float64Array.from(xs).sort();
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('differenceOf: a percentile difference judged on its interval alone', () => {
  it('calls a shift whose interval excludes 0 regressed or improved, by the side it lies', () => {
    const base = sorted(range(1, 200));
    const slower = differenceOf(50, sorted(range(51, 200)), base);
    expect(slower).toMatchObject({ verdict: 'regressed', deltaMs: 50 });
    expect(slower.lowMs).toBeGreaterThan(0);
    expect(slower.reason).toMatch(/^\+50\.0 ms, 95 % interval .* to .*, which excludes 0$/);
    const faster = differenceOf(50, base, sorted(range(51, 200)));
    expect(faster).toMatchObject({ verdict: 'improved', deltaMs: -50 });
    expect(faster.highMs).toBeLessThan(0);
  });
  it('leaves a difference whose interval holds 0 neutral, however it reads', () => {
    // One slower proxy out of 200 moves the P99.9 (the slowest) by 1 ms: within the noise.
    const d = differenceOf(99.9, sorted([...range(1, 199), 201]), sorted(range(1, 200)));
    expect(d).toMatchObject({ verdict: 'no-significant-change', deltaMs: 1 });
    expect(d.reason).toMatch(/holds 0$/);
  });
  it('is not comparable without raw latencies on either side', () => {
    const none = new Float64Array(0);
    expect(differenceOf(99, none, sorted([1]))).toEqual({
      p: 99,
      verdict: 'not-comparable',
      reason: 'no raw latencies in this run',
      deltaMs: null,
      lowMs: null,
      highMs: null,
    });
    expect(differenceOf(99, sorted([1]), none).reason).toBe('no raw latencies in the baseline');
  });
});
