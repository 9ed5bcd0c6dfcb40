import { describe, expect, it } from 'vitest';
import { chooseLoadPoint, type LoadFacts, loadValue, pooledFacts } from './history-metrics.ts';

const step = (over: Partial<LoadFacts>): LoadFacts => ({
  mode: 'both',
  connections: 64,
  targetRps: 1000,
  config: null,
  achievedRps: 1000,
  requests: 1000,
  errors: 0,
  p50: null,
  p99: null,
  ...over,
});
const p99 = (ms: number) => ({ p: 99, ms, exact: true, method: 'hdr' as const });

describe('data-plane history values', () => {
  it('reads a merged step (one row for all its generators)', () => {
    const load = [step({ p99: p99(39.5), achievedRps: 495_000 })];
    const at = chooseLoadPoint(load, {});
    expect(at).toEqual({ mode: 'both', connections: 64, targetRps: 1000, config: null });
    expect(loadValue(load, at as NonNullable<typeof at>, 'loadP99')?.value).toBe(39.5);
    expect(loadValue(load, at as NonNullable<typeof at>, 'achievedRps')?.value).toBe(495_000);
  });

  it('keeps configurations apart: the most common, or the one asked for', () => {
    const load = [
      step({ config: 'none', p99: p99(5) }),
      step({ config: 'v2', p99: p99(9) }),
      step({ config: 'v2', p99: p99(11), connections: 16 }),
    ];
    // At 64 connections each config has one step: a tie, broken by name.
    const at = chooseLoadPoint(load, {});
    expect(at?.config).toBe('none');
    expect(loadValue(load, at as NonNullable<typeof at>, 'loadP99')?.value).toBe(5);
    const v2 = chooseLoadPoint(load, { config: 'v2' });
    expect(loadValue(load, v2 as NonNullable<typeof v2>, 'loadP99')?.value).toBe(9);
  });

  it('reads repeats of one step as their median; pools their errors', () => {
    // Three repeats: P99 4, 9, 6 ms -> the nearest-rank median (rank 2 of 3) is 6; 1,000
    // requests each with 0, 10 and 20 errors: 30 of 3,000 = 1 %.
    const load = [
      step({ p99: p99(4), errors: 0, achievedRps: 990 }),
      step({ p99: p99(9), errors: 10, achievedRps: 1000 }),
      step({ p99: p99(6), errors: 20, achievedRps: 970 }),
    ];
    const at = chooseLoadPoint(load, {}) as NonNullable<ReturnType<typeof chooseLoadPoint>>;
    expect(loadValue(load, at, 'loadP99')?.value).toBe(6);
    expect(loadValue(load, at, 'achievedRps')?.value).toBe(990);
    expect(loadValue(load, at, 'errorRate')?.value).toBeCloseTo(1, 12);
    // Two repeats: the lower median (rank 1 of 2).
    expect(loadValue(load.slice(0, 2), at, 'loadP99')?.value).toBe(4);
  });
});

describe('pooledFacts', () => {
  it('reads every propagation metric off the pooled distribution', () => {
    const values = pooledFacts({
      label: 'pooled',
      changes: 3,
      count: 290,
      expected: 300,
      minMs: 1,
      maxMs: 2000,
      meanMs: 700,
      percentiles: [
        { p: 50, ms: 500, exact: true, method: 'raw' },
        { p: 99, ms: 1970, exact: true, method: 'raw' },
      ],
      withinCount: 200,
      withinFraction: 200 / 300,
    });
    expect(values.p99?.value).toBe(1970);
    expect(values.p50?.value).toBe(500);
    expect(values.mean?.value).toBe(700);
    expect(values.max?.value).toBe(2000);
    expect(values.within1s?.value).toBeCloseTo(66.667, 3);
    expect(values.missing?.value).toBe(10);
  });
});
