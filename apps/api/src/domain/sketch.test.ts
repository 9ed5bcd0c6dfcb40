import { DDSketch } from '@datadog/sketches-js';
import { describe, expect, it } from 'vitest';
import { percentileOf } from './distribution.ts';
import { decodeSketch, encodeSketch, newSketch } from './sketch.ts';

const sketchOf = (values: number[], sketch = newSketch()) => {
  for (const v of values) sketch.accept(v);
  return sketch;
};

describe('sketch encoding', () => {
  it('round-trips values on both sides of zero', () => {
    const values = [-5, -1, 0, 0, 1, 2, 3, 50, 1000];
    const decoded = decodeSketch(encodeSketch(sketchOf(values)));
    expect(decoded.count).toBe(values.length);
    const p50 = percentileOf({ form: 'ddsketch', sketch: decoded }, 50);
    expect(Math.abs((p50?.value ?? 0) - 1)).toBeLessThan(0.02);
  });

  it('writes each sketch with its own mapping, one after another', () => {
    // Another accuracy between two default ones: a cached mapping must not leak across.
    const a = encodeSketch(sketchOf([10, 20]));
    const coarse = encodeSketch(sketchOf([10, 20], new DDSketch({ relativeAccuracy: 0.05 })));
    const b = encodeSketch(sketchOf([10, 20]));
    expect(b).toEqual(a);
    const gamma = (bytes: Uint8Array) =>
      (decodeSketch(bytes) as unknown as { mapping: { gamma: number } }).mapping.gamma;
    expect(gamma(a)).toBeCloseTo(1.01 / 0.99, 10);
    expect(gamma(coarse)).toBeCloseTo(1.05 / 0.95, 10);
    expect(decodeSketch(coarse).getValueAtQuantile(1)).toBeGreaterThan(19);
  });
});
