// The conversions into sketches and the merges and windows of stored ones. DDSketch keeps each
// value's bin to 1 %, but its count, sum, min and max exactly: the expected values here are
// worked from where each bucket's count is placed.
import { CubicallyInterpolatedMapping } from '@datadog/sketches-js/dist/ddsketch/mapping/index.js';
import { describe, expect, it } from 'vitest';
import {
  decodeSketch,
  encodeSketch,
  mergeEncoded,
  mergeInto,
  newSketch,
  type Sketch,
  sketchFromBuckets,
  sketchFromExponential,
  subtractSketch,
} from './sketch.ts';

const sketchOf = (values: number[]) => {
  const s = newSketch();
  for (const v of values) s.accept(v);
  return s;
};
const facts = (s: Sketch) => ({ count: s.count, sum: s.sum, min: s.min, max: s.max });
const near = (a: number, b: number) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(0.011 * Math.abs(b));

describe('sketchFromExponential: each bucket at its geometric middle', () => {
  it('scale 0 (base 2): bucket i is (2^i, 2^(i+1)], positive, negative and zero', () => {
    // OTLP: base = 2^(2^-scale), bucket index i holds (base^i, base^(i+1)].
    // Positive offset 0: [2, 0, 3] -> 2 at sqrt(1 * 2), 3 at sqrt(4 * 8); negative offset 1:
    // 4 at -sqrt(2 * 4); one zero.
    const s = sketchFromExponential({
      scale: 0,
      zeroCount: 1,
      positive: { offset: 0, bucketCounts: [2, 0, 3] },
      negative: { offset: 1, bucketCounts: [4] },
    });
    expect(s.count).toBe(10);
    expect(s.zeroCount).toBe(1);
    expect(s.min).toBeCloseTo(-Math.sqrt(8), 12);
    expect(s.max).toBeCloseTo(Math.sqrt(32), 12);
    expect(s.sum).toBeCloseTo(2 * Math.SQRT2 + 3 * Math.sqrt(32) - 4 * Math.sqrt(8), 12);
  });
  it('scale 1 (base sqrt 2) and scale -1 (base 4)', () => {
    // Scale 1, index 2: (2, 2^1.5], middle 2^1.25.
    const fine = sketchFromExponential({
      scale: 1,
      zeroCount: 0,
      positive: { offset: 2, bucketCounts: [1] },
    });
    expect(fine.count).toBe(1);
    // base^2 = 2, base^3 = 2^1.5 (floating point: within 1e-12).
    for (const v of [fine.sum, fine.min, fine.max]) expect(v).toBeCloseTo(2 ** 1.25, 12);
    // Scale -1, index 1: (4, 16], middle 8; no zeros counted.
    const coarse = sketchFromExponential({
      scale: -1,
      zeroCount: 0,
      positive: { offset: 1, bucketCounts: [5] },
      negative: null,
    });
    expect(facts(coarse)).toEqual({ count: 5, sum: 40, min: 8, max: 8 });
    expect(coarse.zeroCount).toBe(0);
  });
  it('a bucket whose middle underflows to 0 is left out; negatives alone', () => {
    // Scale 0, index -1100: (2^-1100, 2^-1099], both below the smallest double: middle 0.
    const tiny = sketchFromExponential({
      scale: 0,
      zeroCount: 0,
      positive: { offset: -1100, bucketCounts: [1] },
    });
    expect(tiny.count).toBe(0);
    expect(tiny.zeroCount).toBe(0);
    const neg = sketchFromExponential({
      scale: 0,
      zeroCount: 0,
      negative: { offset: 2, bucketCounts: [3] },
    });
    // Index 2: (4, 8], middle sqrt(32), three times, negative.
    expect(facts(neg)).toEqual({
      count: 3,
      sum: -3 * Math.sqrt(32),
      min: -Math.sqrt(32),
      max: -Math.sqrt(32),
    });
  });
  it("the top bucket's upper bound is held at the largest double", () => {
    // Index 1023 at scale 0: (2^1023, 2^1024], and 2^1024 overflows: the middle is
    // sqrt(2^1023) * sqrt(MAX_VALUE), about 2^1023.5.
    const s = sketchFromExponential({
      scale: 0,
      zeroCount: 0,
      positive: { offset: 1023, bucketCounts: [1] },
    });
    expect(s.count).toBe(1);
    expect(s.max).toBe(Math.sqrt(2 ** 1023) * Math.sqrt(Number.MAX_VALUE));
    expect(s.max / (Math.SQRT2 * 2 ** 1023)).toBeCloseTo(1, 9);
  });
});

describe('sketchFromBuckets: each explicit bucket at its middle', () => {
  it('bounds [10, 20]: (-inf, 10], (10, 20], (20, +inf) with the recorded min and max', () => {
    // [min 4, 10] -> 7; (10, 20] -> 15 twice; (20, max 50] -> 35 three times.
    expect(facts(sketchFromBuckets([10, 20], [1, 2, 3], 4, 50))).toEqual({
      count: 6,
      sum: 7 + 30 + 105,
      min: 7,
      max: 35,
    });
    // No min or max: the open buckets sit at their one bound.
    expect(facts(sketchFromBuckets([10, 20], [1, 2, 3]))).toEqual({
      count: 6,
      sum: 10 + 30 + 60,
      min: 10,
      max: 20,
    });
    expect(facts(sketchFromBuckets([10, 20], [1, 0, 1], null, null))).toEqual({
      count: 2,
      sum: 30,
      min: 10,
      max: 20,
    });
  });
  it('a middle outside the recorded min and max is held to them', () => {
    // (10, 20]'s middle 15 below the min 16: at 16; above the max 13: at 13.
    expect(sketchFromBuckets([10, 20], [0, 1, 0], 16, 18).sum).toBe(16);
    expect(sketchFromBuckets([10, 20], [0, 1, 0], 11, 13).sum).toBe(13);
    // Min alone or max alone still holds.
    expect(sketchFromBuckets([10, 20], [0, 2, 0], 16).sum).toBe(32);
    expect(sketchFromBuckets([10, 20], [0, 2, 0], undefined, 12).sum).toBe(24);
  });
  it('no bounds: one bucket from min to max, or at zero', () => {
    expect(facts(sketchFromBuckets([], [2], 3, 5))).toEqual({ count: 2, sum: 8, min: 4, max: 4 });
    const zero = sketchFromBuckets([], [3]);
    expect(zero.count).toBe(3);
    expect(zero.zeroCount).toBe(3);
  });
});

describe('mergeInto and mergeEncoded', () => {
  it('merges both signs, into an empty sketch or not', () => {
    const a = sketchOf([1, 2, -7]);
    mergeInto(a, sketchOf([-3, -40, 5]));
    expect(a.count).toBe(6);
    // The negative values of both are there: the lowest is -40, the next -7.
    near(a.getValueAtQuantile(0), -40);
    near(a.getValueAtQuantile(0.2), -7);
    near(a.getValueAtQuantile(1), 5);
    const empty = newSketch();
    mergeInto(empty, sketchOf([-3, 4]));
    expect(empty.count).toBe(2);
    near(empty.getValueAtQuantile(0), -3);
    // Into an empty sketch the library takes both signs itself: the negatives once, so the
    // top is still 4.
    near(empty.getValueAtQuantile(1), 4);
    // Nothing to merge: unchanged.
    const c = sketchOf([-1, 1]);
    mergeInto(c, newSketch());
    expect(c.count).toBe(2);
    near(c.getValueAtQuantile(0), -1);
  });
  it('merges the stored ones, skipping absent and empty bytes', () => {
    expect(mergeEncoded([])).toBeUndefined();
    expect(mergeEncoded([null, undefined, new Uint8Array()])).toBeUndefined();
    const m = mergeEncoded([
      null,
      encodeSketch(sketchOf([1, -2])),
      new Uint8Array(),
      encodeSketch(sketchOf([-30, 4])),
      encodeSketch(sketchOf([100])),
    ]) as Sketch;
    expect(m.count).toBe(5);
    near(m.getValueAtQuantile(0), -30);
    near(m.getValueAtQuantile(0.25), -2);
    near(m.getValueAtQuantile(1), 100);
  });
});

describe('subtractSketch: the window between two cumulative sketches', () => {
  it('later minus earlier, bin by bin, both signs and zeros', () => {
    const earlier = sketchOf([1, -3, 0, 5]);
    const later = sketchOf([1, 1, 2, -3, -3, -50, 0, 0, 5, 100]);
    // Added between: 1, 2, -3, -50, 0, 100.
    const w = subtractSketch(later, earlier);
    expect(w.count).toBe(6);
    expect(w.zeroCount).toBe(1);
    const q = [0, 0.2, 0.4, 0.6, 0.8, 1].map((x) => w.getValueAtQuantile(x));
    for (const [i, want] of [-50, -3, 0, 1, 2, 100].entries()) near(q[i] as number, want);
    // Round-trips as stored.
    expect(decodeSketch(encodeSketch(w)).count).toBe(6);
  });
  it('never below zero; nothing added is an empty sketch', () => {
    const a = sketchOf([1, 2, -1, 0]);
    const none = subtractSketch(a, a);
    expect(none.count).toBe(0);
    // Earlier holds more than later (a reset): no bin goes negative.
    const reset = subtractSketch(sketchOf([2]), sketchOf([2, 2, -1, 0, 0]));
    expect(reset.count).toBe(0);
    // Later's keys outside earlier's range (below and above it) are kept whole.
    const spread = subtractSketch(sketchOf([0.5, 10, 10, 900]), sketchOf([10]));
    expect(spread.count).toBe(3);
    near(spread.getValueAtQuantile(0), 0.5);
    near(spread.getValueAtQuantile(0.5), 10);
    near(spread.getValueAtQuantile(1), 900);
    // Only negatives, or only zeros, added.
    const neg = subtractSketch(sketchOf([-2, -2]), sketchOf([-2]));
    expect(neg.count).toBe(1);
    near(neg.getValueAtQuantile(0), -2);
    expect(subtractSketch(sketchOf([0, 0]), newSketch()).zeroCount).toBe(2);
  });
});

describe('encodeSketch: each mapping written as its own', () => {
  it('a cubically interpolated mapping of the same gamma and offset is not the cached one', () => {
    const log = sketchOf([10, 20]);
    const cubic = sketchOf([10, 20]);
    (cubic as unknown as { mapping: unknown }).mapping = new CubicallyInterpolatedMapping(0.01);
    const kind = (bytes: Uint8Array) =>
      (decodeSketch(bytes) as unknown as { mapping: object }).mapping.constructor.name;
    expect(kind(encodeSketch(log))).toBe('LogarithmicMapping');
    expect(kind(encodeSketch(cubic))).toBe('CubicallyInterpolatedMapping');
    expect(kind(encodeSketch(log))).toBe('LogarithmicMapping');
  });
});
