import type { PercentileDifferenceAnswer, PercentileValue, Propagation } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  beyondBounds,
  boundsOf,
  delta,
  deltaRows,
  formatAbsolute,
  formatRelative,
  percentileSignificant,
  sharesDiffer,
  shownVerdict,
  withinCounts,
} from './deltas.ts';

/** A summary with only the fields the table reads set; the rest are empty. */
function summary(p: {
  within: number | null;
  p50: number;
  p99: number;
  mean: number;
  max: number;
  missing: number | null;
  /** Proxies that applied it (the base of the share within, no change declaring expected). */
  count?: number;
}): Propagation {
  return {
    change: { id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', at: '', expected: null },
    count: p.count ?? 1000,
    observations: 0,
    expected: null,
    missing: p.missing,
    beforeChange: 0,
    repeats: 0,
    minMs: 0,
    maxMs: p.max,
    meanMs: p.mean,
    // Raw latencies: exact (the API says so of every propagation percentile).
    percentiles: [
      { p: 50, ms: p.p50, exact: true, method: 'raw' },
      { p: 99, ms: p.p99, exact: true, method: 'raw' },
    ],
    withinMs: 1000,
    withinCount: 0,
    withinFraction: p.within,
    scale: 'linear',
    histogram: [],
    underflow: 0,
    overflow: 0,
    cdf: [],
    computedAt: null,
    stage: 'applied',
    stages: [],
    coverage: { of: 'observed', base: 0, exact: true, points: [] },
  };
}

describe('delta', () => {
  it('says lower latency is better and higher is worse', () => {
    expect(delta(100, 150, 'lower')).toEqual({ abs: 50, rel: 0.5, verdict: 'worse' });
    expect(delta(100, 80, 'lower')).toEqual({ abs: -20, rel: -0.2, verdict: 'better' });
  });
  it('says a higher share within 1 s is better', () => {
    const d = delta(0.8, 0.9, 'higher');
    expect(d?.abs).toBeCloseTo(0.1, 12);
    expect(d?.rel).toBeCloseTo(0.125, 12);
    expect(d?.verdict).toBe('better');
    expect(delta(0.9, 0.8, 'higher')?.verdict).toBe('worse');
  });
  it('calls equal values the same, and has no relative difference from 0', () => {
    expect(delta(5, 5, 'lower')).toEqual({ abs: 0, rel: 0, verdict: 'same' });
    expect(delta(0, 5, 'lower')).toEqual({ abs: 5, rel: null, verdict: 'worse' });
  });
  it('has nothing to say without both values', () => {
    expect(delta(null, 5, 'lower')).toBeNull();
    expect(delta(5, undefined, 'lower')).toBeNull();
  });
});

describe('formatting a difference', () => {
  it('signs absolute differences in the metric unit', () => {
    expect(formatAbsolute(124.5, 'ms')).toBe('+124.5 ms');
    expect(formatAbsolute(-3.25, 'ms')).toBe('-3.25 ms');
    expect(formatAbsolute(-173524.146, 'ms')).toBe('-173.5 s');
    expect(formatAbsolute(0.012, 'share')).toBe('+1.2 pp');
    expect(formatAbsolute(18, 'count')).toBe('+18');
    expect(formatAbsolute(-1234, 'count')).toBe('-1,234');
    expect(formatAbsolute(0, 'ms')).toBe('±0');
  });
  it('gives relative differences in percent with one decimal', () => {
    expect(formatRelative(0.052)).toBe('+5.2 %');
    expect(formatRelative(-0.5)).toBe('-50.0 %');
    expect(formatRelative(24.5)).toBe('+2,450.0 %');
    expect(formatRelative(0.0004)).toBe('±0.0 %');
    expect(formatRelative(null)).toBe('—');
  });
});

describe('deltaRows', () => {
  const baseline = summary({
    within: 0.8,
    p50: 66.391,
    p99: 175524.146,
    mean: 4800,
    max: 240593.969,
    missing: 12,
  });
  const other = summary({
    within: 0.9,
    p50: 100,
    p99: 2000,
    mean: 500,
    max: 240593.969,
    missing: 30,
  });
  /** The API's intervals for `other`: P50 worse beyond noise, P99 better beyond noise. */
  const interval = (p: number, verdict: PercentileDifferenceAnswer['verdict']) => ({
    p,
    verdict,
    reason: '',
    deltaMs: 0,
    lowMs: 0,
    highMs: 0,
  });
  const rows = deltaRows(
    [baseline, other, null],
    [[], [interval(50, 'regressed'), interval(99, 'improved')], undefined],
  );
  const row = (key: string) => rows.find((r) => r.metric.key === key);

  it('has a row per metric, the share within 1 s first', () => {
    expect(rows.map((r) => r.metric.label)).toEqual([
      'Within 1 s',
      'P50',
      'P99',
      'Mean',
      'Max',
      'Never applied',
    ]);
  });
  it('shows the baseline value without a difference', () => {
    expect(row('p50')?.cells[0]).toMatchObject({
      value: '66.4 ms',
      abs: '',
      rel: '',
      fromEstimate: false,
      verdict: null,
    });
  });
  it('computes each difference from the baseline', () => {
    // 0.9 - 0.8 = +10 points; 0.1 / 0.8 = +12.5 %.
    expect(row('within')?.cells[1]).toEqual({
      value: '90.0 %',
      marked: null,
      fromEstimate: false,
      abs: '+10.0 pp',
      rel: '+12.5 %',
      verdict: 'better',
      relVerdict: 'better',
    });
    // 100 - 66.391 = 33.609 ms; 33.609 / 66.391 = 50.62 %.
    expect(row('p50')?.cells[1]).toMatchObject({
      value: '100.0 ms',
      abs: '+33.6 ms',
      rel: '+50.6 %',
      verdict: 'worse',
    });
    // 2,000 - 175,524.146 = -173,524.146; / 175,524.146 = -98.86 %.
    expect(row('p99')?.cells[1]).toMatchObject({
      value: '2.000 s',
      abs: '-173.5 s',
      rel: '-98.9 %',
      verdict: 'better',
    });
    // 500 - 4,800 = -4,300; / 4,800 = -89.58 %.
    // The mean has no interval: its difference is shown, not coloured.
    expect(row('mean')?.cells[1]).toMatchObject({
      abs: '-4.300 s',
      rel: '-89.6 %',
      verdict: 'same',
    });
    expect(row('max')?.cells[1]).toMatchObject({ abs: '±0', rel: '±0.0 %', verdict: 'same' });
    // 30 - 12 = 18 more proxies never applied it, worse; said in counts, not "+150 %".
    expect(row('missing')?.cells[1]).toEqual({
      value: '30',
      marked: null,
      fromEstimate: false,
      abs: '+18',
      rel: '12 → 30',
      verdict: 'worse',
      relVerdict: 'worse',
    });
  });
  it('leaves a run without the change blank', () => {
    expect(row('p50')?.cells[2]).toMatchObject({
      value: '—',
      abs: '—',
      rel: '—',
      fromEstimate: false,
      verdict: null,
    });
  });
  it('has no rows without a baseline', () => {
    expect(deltaRows([null, other])).toEqual([]);
  });
});

describe('deltaRows with estimated percentiles', () => {
  const exact = { exact: true, method: 'raw' } as const;
  const estimate = {
    exact: false,
    method: 'explicit-histogram',
    lower: 90,
    upper: 120,
  } as const;
  const withAccuracy = (s: Propagation, p50: Partial<PercentileValue>): Propagation => ({
    ...s,
    percentiles: s.percentiles.map((x) => (x.p === 50 ? { ...x, ...p50 } : { ...x, ...exact })),
  });
  const base = withAccuracy(
    summary({ within: 0.8, p50: 50, p99: 900, mean: 60, max: 1000, missing: 0 }),
    exact,
  );
  const est = withAccuracy(
    summary({ within: 0.8, p50: 100, p99: 900, mean: 60, max: 1000, missing: 0 }),
    estimate,
  );
  const rows = deltaRows([base, est]);
  const row = (key: string) => rows.find((r) => r.metric.key === key);

  it('marks an estimated value and gives its bucket', () => {
    const cell = row('p50')?.cells[1];
    expect(cell?.marked?.text).toBe('~100.0 ms');
    expect(cell?.marked?.description).toBe(
      'estimated by explicit-histogram: between 90.0 ms and 120.0 ms',
    );
  });
  it('marks a difference taken from an estimate, and no other', () => {
    // 100 - 50 = +50 ms, +100 %: from the estimated P50.
    expect(row('p50')?.cells[1]).toMatchObject({
      abs: '~+50.0 ms',
      rel: '~+100.0 %',
      fromEstimate: true,
    });
    expect(row('p99')?.cells[1]).toMatchObject({ abs: '±0', fromEstimate: false });
    expect(row('p99')?.cells[1]?.marked?.text).toBe('900.0 ms');
    expect(row('p99')?.cells[0]?.marked?.description).toBe(
      'exact (nearest rank over all recorded values)',
    );
  });
  it('marks the difference when only the baseline is an estimate', () => {
    const swapped = deltaRows([est, base]).find((r) => r.metric.key === 'p50');
    expect(swapped?.cells[0]?.marked?.text).toBe('~100.0 ms');
    expect(swapped?.cells[1]).toMatchObject({ abs: '~-50.0 ms', fromEstimate: true });
  });
});

describe('the colour of a difference as shown', () => {
  it('is neutral when the shown text has no non-zero digit', () => {
    expect(shownVerdict('better', '±0.0 pp')).toBe('same');
    expect(shownVerdict('worse', '+0.000 pp')).toBe('same');
    expect(shownVerdict('worse', '~±0 ms')).toBe('same');
    expect(shownVerdict('worse', '—')).toBe('same');
    expect(shownVerdict('worse', '+0.001 pp')).toBe('worse');
    expect(shownVerdict('better', '-10.0 ms')).toBe('better');
  });
  const cellOf = (base: number, value: number) => {
    // A billion proxies: a share's sampling spread far below the differences shown here.
    const rest = { p50: 1, p99: 2, mean: 1, max: 2, missing: 0, count: 1e9 };
    const rows = deltaRows([
      summary({ within: base, ...rest }),
      summary({ within: value, ...rest }),
    ]);
    return rows.find((r) => r.metric.key === 'within')?.cells[1];
  };
  it('draws a share that moved less than 0.05 points as the same', () => {
    // 0.9004 - 0.9 = 0.04 points, shown "±0.0 pp"; 0.0004 / 0.9 = 0.044 %, shown "±0.0 %".
    expect(cellOf(0.9, 0.9004)).toMatchObject({
      abs: '±0.0 pp',
      rel: '±0.0 %',
      verdict: 'same',
      relVerdict: 'same',
    });
  });
  it('colours each difference by its own text', () => {
    // 0.5004 - 0.5 = 0.04 points, "±0.0 pp"; 0.0004 / 0.5 = 0.08 %, "+0.1 %", higher is better.
    expect(cellOf(0.5, 0.5004)).toMatchObject({
      abs: '±0.0 pp',
      rel: '+0.1 %',
      verdict: 'same',
      relVerdict: 'better',
    });
    // 0.5 - 0.5006 = -0.06 points, shown "-0.1 pp": worse.
    expect(cellOf(0.5006, 0.5)).toMatchObject({ abs: '-0.1 pp', verdict: 'worse' });
  });
});

describe('a difference is coloured only beyond the bounds of its estimates', () => {
  const hdr = (lower: number, upper: number) =>
    ({ exact: false, method: 'hdr', lower, upper }) as const;
  it('reads the bound each estimator states', () => {
    expect(boundsOf(10, { exact: true, method: 'raw' })).toEqual([10, 10]);
    expect(boundsOf(10, hdr(9.9, 10.1))).toEqual([9.9, 10.1]);
    expect(boundsOf(100, { exact: false, method: 'ddsketch', relativeError: 0.01 })).toEqual([
      99, 101,
    ]);
    expect(boundsOf(100, { exact: false, method: 'clock-corrected', clockErrorMs: 1.2 })).toEqual([
      98.8, 101.2,
    ]);
    // As reported, or nothing said: nothing bounds it.
    expect(boundsOf(100, { exact: false, method: 'reported' })).toBeNull();
    expect(boundsOf(100, undefined)).toBeNull();
  });
  it('calls bounds that meet or overlap no significant difference', () => {
    expect(beyondBounds([9.9, 10.1], [10.1, 10.3])).toBe(false);
    expect(beyondBounds([9.9, 10.1], [10.11, 10.3])).toBe(true);
    expect(beyondBounds([10, 10], [10.001, 10.001])).toBe(true);
    expect(beyondBounds(null, [1, 1])).toBe(false);
  });
  it('leaves "+0.001 ms" between two overlapping estimates neutral, and colours a clear one', () => {
    const run = (p50: Partial<PercentileValue>) => {
      const s = summary({ within: 0.8, p50: 0, p99: 900, mean: 60, max: 1000, missing: 0 });
      return { ...s, percentiles: s.percentiles.map((x) => (x.p === 50 ? { ...x, ...p50 } : x)) };
    };
    const near = deltaRows([
      run({ ms: 10, ...hdr(9.99, 10.01) }),
      run({ ms: 10.001, ...hdr(9.991, 10.011) }),
    ]);
    const cell = near.find((r) => r.metric.key === 'p50')?.cells[1];
    expect(cell).toMatchObject({ abs: '~+0.001 ms', verdict: 'same', relVerdict: 'same' });
    const far = deltaRows([
      run({ ms: 10, ...hdr(9.99, 10.01) }),
      run({ ms: 12, ...hdr(11.99, 12.01) }),
    ]);
    expect(far.find((r) => r.metric.key === 'p50')?.cells[1]?.verdict).toBe('worse');
  });
});

describe('a difference is coloured only when it is significant', () => {
  const interval = (
    verdict: PercentileDifferenceAnswer['verdict'],
  ): PercentileDifferenceAnswer => ({
    p: 99,
    verdict,
    reason: '',
    deltaMs: 5,
    lowMs: verdict === 'regressed' ? 1 : -1,
    highMs: 9,
  });
  const exact: [number, number] = [10, 10];
  const other: [number, number] = [15, 15];
  it('follows the bootstrap interval of the API wherever there is one', () => {
    expect(percentileSignificant(interval('regressed'), exact, other)).toBe(true);
    expect(percentileSignificant(interval('improved'), other, exact)).toBe(true);
    // +5 ms, but the interval holds 0: neutral, however far apart the values read.
    expect(percentileSignificant(interval('no-significant-change'), exact, other)).toBe(false);
  });
  it('leaves two exact values neutral until an interval says they differ', () => {
    expect(percentileSignificant(undefined, exact, other)).toBe(false);
    expect(percentileSignificant(interval('not-comparable'), exact, other)).toBe(false);
  });
  it("falls back on the estimates' bounds where the API has no raw latencies", () => {
    expect(percentileSignificant(interval('not-comparable'), [9, 11], [14, 16])).toBe(true);
    expect(percentileSignificant(undefined, [9, 11], [10.5, 16])).toBe(false);
    expect(percentileSignificant(undefined, exact, [14, 16])).toBe(true);
    expect(percentileSignificant(undefined, null, other)).toBe(false);
  });
  it('says two shares differ only beyond their sampling spread', () => {
    // 80 of 100 vs 90 of 100: se = sqrt(.16/100 + .09/100) = 0.05, 1.96 se = 0.098 < 0.1.
    expect(sharesDiffer(80, 100, 90, 100)).toBe(true);
    // 81 of 100 vs 90 of 100: 0.09 < 0.098 (se 0.0482, 1.96 se 0.0945).
    expect(sharesDiffer(81, 100, 90, 100)).toBe(false);
    // Everything within in both: no spread, no difference.
    expect(sharesDiffer(100, 100, 100, 100)).toBe(false);
    // All within against one late of 20,000: se = sqrt(0.99995 * 0.00005 / 20,000) = 0.00005,
    // 1.96 se = 0.000098 > 0.00005: the one late proxy is within the spread; 100 late are not.
    expect(sharesDiffer(20_000, 20_000, 19_999, 20_000)).toBe(false);
    expect(sharesDiffer(20_000, 20_000, 19_900, 20_000)).toBe(true);
    expect(sharesDiffer(1, 0, 1, 1)).toBe(false);
  });
  it('counts the share within of the expected proxies, else of those seen', () => {
    const s = summary({ within: 0.25, p50: 1, p99: 2, mean: 1, max: 2, missing: 0, count: 8 });
    expect(withinCounts(s)).toEqual({ k: 2, n: 8 });
    expect(withinCounts({ ...s, expected: 12, withinFraction: 0.5 })).toEqual({ k: 6, n: 12 });
    expect(withinCounts({ ...s, withinFraction: null })).toBeNull();
  });
  it('colours the table by the intervals: the same +5 ms neutral or worse', () => {
    const base = summary({ within: 0.8, p50: 10, p99: 100, mean: 60, max: 1000, missing: 0 });
    const run = summary({ within: 0.8, p50: 10, p99: 105, mean: 60, max: 1000, missing: 0 });
    const p99 = (verdict: PercentileDifferenceAnswer['verdict']) =>
      deltaRows([base, run], [[], [interval(verdict)]]).find((r) => r.metric.key === 'p99')
        ?.cells[1];
    expect(p99('regressed')).toMatchObject({ abs: '+5.00 ms', verdict: 'worse' });
    expect(p99('no-significant-change')).toMatchObject({ abs: '+5.00 ms', verdict: 'same' });
    expect(deltaRows([base, run]).find((r) => r.metric.key === 'p99')?.cells[1]?.verdict).toBe(
      'same',
    );
  });
});
