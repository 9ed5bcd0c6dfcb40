import { describe, expect, it } from 'vitest';
import { gateSignificance, noiseFloor } from './gate-significance.ts';

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
  });
});
