import { describe, expect, it } from 'vitest';
import {
  gateSignificance,
  judgeDifference,
  noiseFloor,
  percentileOf,
} from './gate-significance.ts';

// 50 proxies at 10, 20 ... 500 ms, and the same 20 % slower: P99 500 -> 600 ms.
const tens = (scale: number) => Float64Array.from({ length: 50 }, (_, i) => (i + 1) * 10 * scale);
const input = {
  percentile: 99,
  current: tens(1.2),
  baseline: tens(1),
  minEffectMs: 50,
  noiseFloorMs: null,
};

describe('gateSignificance', () => {
  it('calls a clear shift beyond the rule a regression, and says by how much', () => {
    const s = gateSignificance(input);
    expect(s.verdict).toBe('regressed');
    expect(s.delta).toBe(100);
    expect(s.low).toBeGreaterThan(0);
    expect(s.reason).toMatch(
      /^\+100.0 ms, 95 % interval .* beyond the rule's minimum \(50.0 ms\)$/,
    );
  });

  it('is not comparable when the clocks may be off by as much as the difference', () => {
    expect(gateSignificance({ ...input, clockErrorMs: 120 })).toMatchObject({
      verdict: 'not-comparable',
      reason: "the clocks' error (± 120.0 ms) is as large as the difference (100.0 ms)",
    });
    expect(gateSignificance({ ...input, clockErrorMs: 1.2 }).verdict).toBe('regressed');
  });

  it('holds a shift within the noise floor as no significant change', () => {
    expect(gateSignificance({ ...input, noiseFloorMs: 150 })).toMatchObject({
      verdict: 'no-significant-change',
      reason: '100.0 ms is within the noise floor (150.0 ms)',
    });
  });

  it('is not comparable without raw observations on either side', () => {
    expect(gateSignificance({ ...input, baseline: null })).toMatchObject({
      verdict: 'not-comparable',
      reason: 'no raw observations in the baseline',
    });
  });

  it('learns the noise floor as the largest spread within one configuration', () => {
    expect(noiseFloor([[500, 650, 520], [300], [100, 180]])).toBe(150);
    expect(noiseFloor([[300], []])).toBeNull();
    // Two repeats are a group: 180 - 100.
    expect(noiseFloor([[100, 180], [40]])).toBe(80);
  });

  it('is not comparable when told why, before reading any observation', () => {
    expect(gateSignificance({ ...input, notComparable: 'other topology' })).toEqual({
      verdict: 'not-comparable',
      noiseFloorMs: null,
      reason: 'other topology',
    });
    expect(gateSignificance({ ...input, current: null })).toMatchObject({
      verdict: 'not-comparable',
      reason: 'no raw observations in this run',
    });
  });

  it('is not comparable when the clocks may be off by exactly the difference', () => {
    expect(gateSignificance({ ...input, clockErrorMs: 100 }).verdict).toBe('not-comparable');
  });

  it('holds the same observations on both sides as no change, with no clock data', () => {
    const same = gateSignificance({ ...input, current: tens(1), clockErrorMs: null });
    expect(same).toMatchObject({ verdict: 'no-significant-change', delta: 0 });
    // One sample against itself: the bootstrap difference is symmetric about 0.
    expect(same.low).toBeLessThan(0);
    expect(same.high).toBe(-(same.low as number));
    expect(same.reason).toMatch(/^95 % interval -.* holds 0$/);
  });
});

// judgeDifference on intervals written by hand: the verdict is read from the interval, the
// difference and the larger of the rule's minimum and the noise floor.
describe('judgeDifference', () => {
  const d = (delta: number, low: number, high: number) => ({ delta, low, high, level: 0.95 });

  it('holds an interval that reaches 0 at either end as no change', () => {
    expect(judgeDifference(d(30, -20, 60), 10, null)).toMatchObject({
      verdict: 'no-significant-change',
      reason: '95 % interval -20.0 ms to 60.0 ms holds 0',
    });
    expect(judgeDifference(d(30, 0, 60), 10, null).verdict).toBe('no-significant-change');
    expect(judgeDifference(d(-30, -60, 0), 10, null).verdict).toBe('no-significant-change');
  });

  it('calls an interval wholly below 0 beyond the minimum an improvement, unsigned', () => {
    expect(judgeDifference(d(-100, -150, -50), 50, null)).toEqual({
      ...d(-100, -150, -50),
      verdict: 'improved',
      noiseFloorMs: null,
      reason: "-100.0 ms, 95 % interval -150.0 ms to -50.0 ms, beyond the rule's minimum (50.0 ms)",
    });
  });

  it('holds a difference equal to the floor as no change', () => {
    expect(judgeDifference(d(50, 20, 80), 50, null)).toMatchObject({
      verdict: 'no-significant-change',
      reason: "50.0 ms is within the rule's minimum (50.0 ms)",
    });
  });

  it('names the noise floor only when it is larger than the rule minimum', () => {
    expect(judgeDifference(d(30, 20, 40), 50, 20).reason).toBe(
      "30.0 ms is within the rule's minimum (50.0 ms)",
    );
    expect(judgeDifference(d(30, 20, 40), 50, 50).reason).toBe(
      "30.0 ms is within the rule's minimum (50.0 ms)",
    );
    expect(judgeDifference(d(100, 60, 140), 50, 70)).toMatchObject({
      verdict: 'regressed',
      noiseFloorMs: 70,
      reason: '+100.0 ms, 95 % interval 60.0 ms to 140.0 ms, beyond the noise floor (70.0 ms)',
    });
  });
});

describe('percentileOf', () => {
  it.each([
    ['p99', 99],
    ['p50', 50],
    ['p99.9', 99.9],
    ['p99.99', 99.99],
    ['mean', null],
    ['max', null],
    ['xp99', null],
    ['p99x', null],
    ['p99.', null],
    ['p', null],
  ])('%s -> %s', (metric, want) => {
    expect(percentileOf(metric)).toBe(want);
  });
});
