import type { PooledDistribution, Propagation } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  chooseLoadPoint,
  cpuFacts,
  isJoinPhase,
  isLoadMetric,
  joinFacts,
  type LoadFacts,
  loadFacts,
  loadValue,
  metricOf,
  PROPAGATION_HISTORY_PERCENTILES,
  pooledFacts,
  propagationFacts,
  samePoint,
} from './history-metrics.ts';

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

describe('propagationFacts and pooledFacts: the named percentiles, with their accuracy', () => {
  const percentiles = [
    // exact and method absent: read as not exact, 'reported'.
    { p: 50, ms: 500 },
    {
      p: 90,
      ms: 900,
      exact: false,
      method: 'hdr' as const,
      lower: 890,
      upper: 910,
      relativeError: 0.01,
      clockErrorMs: 3,
    },
    { p: 99.9, ms: 1999, exact: true, method: 'raw' as const },
    // Not a propagation metric's percentile: left out.
    { p: 42, ms: 420, exact: true, method: 'raw' as const },
  ];
  it('names p50 ... p99.9 and nothing else', () => {
    expect(PROPAGATION_HISTORY_PERCENTILES).toEqual([50, 90, 95, 96, 99, 99.9]);
    const v = propagationFacts({
      percentiles,
      meanMs: null,
      maxMs: null,
      withinFraction: 0.25,
      missing: 0,
    } as unknown as Propagation);
    expect(v).toEqual({
      p50: { value: 500, accuracy: { exact: false, method: 'reported' } },
      p90: {
        value: 900,
        accuracy: {
          exact: false,
          method: 'hdr',
          lower: 890,
          upper: 910,
          relativeError: 0.01,
          clockErrorMs: 3,
        },
      },
      'p99.9': { value: 1999, accuracy: { exact: true, method: 'raw' } },
      // 0.25 of the proxies within 1 s: 25 %; no proxy missing is 0, not absent.
      within1s: { value: 25, accuracy: null },
      missing: { value: 0, accuracy: null },
    });
    // Everything null: nothing but the percentiles.
    expect(
      propagationFacts({
        percentiles: [],
        meanMs: 7,
        maxMs: 9,
        withinFraction: null,
        missing: null,
      } as unknown as Propagation),
    ).toEqual({ mean: { value: 7, accuracy: null }, max: { value: 9, accuracy: null } });
  });

  it('pooled: more applied than expected is 0 missing; nulls are absent', () => {
    const pooled = {
      percentiles,
      count: 310,
      expected: 300,
      meanMs: null,
      maxMs: null,
      withinFraction: null,
    } as unknown as PooledDistribution;
    const v = pooledFacts(pooled);
    expect(Object.keys(v).sort()).toEqual(['missing', 'p50', 'p90', 'p99.9']);
    expect(v.missing).toEqual({ value: 0, accuracy: null });
    expect(v.p90?.accuracy).toEqual({
      exact: false,
      method: 'hdr',
      lower: 890,
      upper: 910,
      relativeError: 0.01,
      clockErrorMs: 3,
    });
    expect(v.p50?.accuracy).toEqual({ exact: false, method: 'reported' });
    // A bound the percentile does not give is absent, not an undefined field.
    expect(Object.keys(v.p50?.accuracy ?? {})).toEqual(['exact', 'method']);
    expect(Object.keys(v.p90?.accuracy ?? {})).toEqual([
      'exact',
      'method',
      'lower',
      'upper',
      'relativeError',
      'clockErrorMs',
    ]);
    expect(pooledFacts({ ...pooled, expected: null }).missing).toBeUndefined();
  });
});

describe('joinFacts: time to N % joined at the nearest rank of the declared total', () => {
  const firsts = [1000, 1100, 1200, 1300];
  it('four of four nodes: ranks 2, 4, 4, 4', () => {
    expect(isJoinPhase('node-join')).toBe(true);
    expect(isJoinPhase('Joined')).toBe(true);
    expect(isJoinPhase('registered')).toBe(false);
    // Total 4 (the topology's nodes): 50 % is rank ceil(2) = 2 (1100 - 900 = 200 ms); 90,
    // 99 and 100 % are rank ceil(3.6) = ceil(3.96) = 4 (400 ms).
    const raw = { exact: true, method: 'raw' };
    expect(joinFacts({ phase: 'joined', attrsTotal: null, firsts }, { nodes: 4 }, 900)).toEqual({
      values: {
        joined50: { value: 200, accuracy: raw },
        joined90: { value: 400, accuracy: raw },
        joined99: { value: 400, accuracy: raw },
        joined100: { value: 400, accuracy: raw },
      },
      lastJoinMs: 1300,
    });
  });
  it('a declared total above the joins: the percents no join reached are left out', () => {
    // attrs total 5: 50 % is rank ceil(2.5) = 3 (1200 - 900); 90 % rank ceil(4.5) = 5 > 4.
    expect(joinFacts({ phase: 'joined', attrsTotal: 5, firsts }, {}, 900)).toEqual({
      values: { joined50: { value: 300, accuracy: { exact: true, method: 'raw' } } },
      lastJoinMs: 1300,
    });
    // 10 nodes declared: 50 % is rank 5, beyond the 4 joins.
    expect(joinFacts({ phase: 'joined', attrsTotal: null, firsts }, { nodes: 10 }, 0)).toEqual({
      values: {},
      lastJoinMs: 1300,
    });
    expect(joinFacts({ phase: 'joined', attrsTotal: null, firsts: [] }, { nodes: 4 }, 0)).toEqual({
      values: {},
      lastJoinMs: null,
    });
  });
});

describe('cpuFacts: peak and steady level', () => {
  it('peak is the largest sample or interval maximum; steady the mean after the ramp', () => {
    const samples = [
      { tMs: 0, value: 1, max: 8 },
      { tMs: 10, value: 2, max: null },
      { tMs: 20, value: 4, max: 3 },
      { tMs: 30, value: 6, max: null },
    ];
    // Peak max(8, 1, 2, 4 (above its max 3), 6) = 8; steady: samples after 10 ms (20 and 30,
    // not the one at 10): (4 + 6) / 2 = 5.
    expect(cpuFacts(samples, 10)).toEqual({
      cpuPeak: { value: 8, accuracy: null },
      cpuSteady: { value: 5, accuracy: null },
    });
    // A sample above its own interval maximum still counts.
    expect(cpuFacts([{ tMs: 0, value: 9, max: 3 }], null)).toEqual({
      cpuPeak: { value: 9, accuracy: null },
    });
    // No steady start (no phases): no steady level, whatever the samples' times.
    expect(cpuFacts([{ tMs: 5, value: 2, max: null }], null)).toEqual({
      cpuPeak: { value: 2, accuracy: null },
    });
    // Nothing after the ramp: no steady level; no samples: nothing.
    expect(cpuFacts(samples, 30)).toEqual({ cpuPeak: { value: 8, accuracy: null } });
    expect(cpuFacts([], 0)).toEqual({});
    // A peak that is not a number is left out.
    expect(cpuFacts([{ tMs: 0, value: Number.NaN, max: null }], null)).toEqual({});
  });
  it("a rate's interval counts from its start: from the steady start on, inclusive", () => {
    const rates = [
      { tMs: 20, fromMs: 5, value: 100, max: null },
      { tMs: 30, fromMs: 10, value: 2, max: null },
      { tMs: 40, fromMs: 20, value: 4, max: null },
    ];
    // From 10 ms: the intervals starting at 10 and 20 (the one ending at 20 began at 5).
    expect(cpuFacts(rates, 10).cpuSteady).toEqual({ value: 3, accuracy: null });
  });
});

describe('loadFacts', () => {
  it('keeps the stated percentiles and reads the missing one off the histogram', () => {
    const row = {
      mode: 'http',
      connections: 8,
      targetRps: 100,
      achievedRps: 99,
      requests: 10,
      errors: 1,
      percentiles: [{ p: 50, ms: 3, exact: true, method: 'raw' as const }],
      // 10 requests in [0, 10] ms: P99 is rank ceil(9.9) = 10, the bucket's top, 10 ms.
      histogram: [{ fromMs: 0, toMs: 10, count: 10 }],
      labels: { config: 'v2' },
    };
    expect(loadFacts(row)).toEqual({
      mode: 'http',
      connections: 8,
      targetRps: 100,
      config: 'v2',
      achievedRps: 99,
      requests: 10,
      errors: 1,
      p50: { p: 50, ms: 3, exact: true, method: 'raw' },
      p99: { p: 99, ms: 10, exact: false, method: 'tool-histogram', lower: 0, upper: 10 },
    });
    // P50 is the one at 50, wherever it stands among the stated ones.
    const p10 = { p: 10, ms: 1, exact: true, method: 'raw' as const };
    expect(loadFacts({ ...row, percentiles: [p10, ...row.percentiles] }).p50?.ms).toBe(3);
    const bare = loadFacts({ ...row, histogram: null, labels: {} });
    expect(bare.config).toBeNull();
    expect(bare.p99).toBeNull();
  });
});

describe('chooseLoadPoint', () => {
  it('mode: "both" when present, else the most common, ties by name', () => {
    expect(chooseLoadPoint([], {})).toBeNull();
    const modes = (...ms: string[]) =>
      chooseLoadPoint(
        ms.map((mode) => step({ mode })),
        {},
      )?.mode;
    expect(modes('http', 'both', 'http')).toBe('both');
    expect(modes('http', 'grpc', 'grpc')).toBe('grpc');
    expect(modes('grpc', 'http', 'http')).toBe('http');
    expect(modes('http', 'grpc')).toBe('grpc');
    expect(modes('grpc', 'http')).toBe('grpc');
    expect(chooseLoadPoint([step({ mode: 'http' })], { mode: 'tcp' })?.mode).toBe('tcp');
  });
  it('the most connections of the mode, the highest rate at those, the most common config', () => {
    const load = [
      step({ mode: 'http', connections: 128, targetRps: 9 }),
      step({ connections: 16, targetRps: 5000 }),
      step({ connections: 64, targetRps: 2000, config: 'b' }),
      step({ connections: 64, targetRps: 2000, config: 'a' }),
      step({ connections: 64, targetRps: 2000, config: 'b' }),
      step({ connections: 64, targetRps: 1000, config: 'c' }),
      step({ connections: null, targetRps: 9000 }),
    ];
    expect(chooseLoadPoint(load, {})).toEqual({
      mode: 'both',
      connections: 64,
      targetRps: 2000,
      config: 'b',
    });
    // Asked for 16 connections: the rate there; asked for a rate: taken as asked.
    expect(chooseLoadPoint(load, { connections: 16 })?.targetRps).toBe(5000);
    expect(chooseLoadPoint(load, { targetRps: 1000 })?.config).toBe('c');
    // Nothing known: null connections and rate; a null config ties first.
    expect(
      chooseLoadPoint([step({ connections: null, targetRps: null, config: null })], {}),
    ).toEqual({ mode: 'both', connections: null, targetRps: null, config: null });
    const tie = [step({ config: 'a' }), step({ config: null })];
    expect(chooseLoadPoint(tie, {})?.config).toBeNull();
    expect(chooseLoadPoint(tie.reverse(), {})?.config).toBeNull();
    expect(chooseLoadPoint([step({ config: 'b' }), step({ config: 'a' })], {})?.config).toBe('a');
    expect(chooseLoadPoint([step({ config: 'a' }), step({ config: 'b' })], {})?.config).toBe('a');
    // No step at the asked point: a null config, not undefined.
    expect(chooseLoadPoint(load, { connections: 3 })?.config).toBeNull();
  });
});

describe('loadValue, samePoint, metricOf', () => {
  const at = { mode: 'both', connections: 64, targetRps: 1000, config: null };
  const p50 = (ms: number) => ({ p: 50, ms, exact: false, method: 'hdr' as const, lower: 1 });
  it('reads only the steps at the point; nulls and zero requests give no rate', () => {
    const load = [
      step({ p50: p50(2), requests: 100, errors: 5 }),
      step({ mode: 'http', p50: p50(99) }),
      step({ connections: 8, p50: p50(99) }),
      step({ targetRps: 5, p50: p50(99) }),
      step({ config: 'x', p50: p50(99) }),
    ];
    expect(loadValue(load, at, 'loadP50')).toEqual({
      value: 2,
      accuracy: { exact: false, method: 'hdr', lower: 1 },
    });
    expect(loadValue(load, at, 'errorRate')).toEqual({ value: 5, accuracy: null });
    // A step with no config field is at the null config.
    const { config: _, ...noConfig } = step({ p50: p50(3) });
    expect(loadValue([noConfig as LoadFacts], at, 'loadP50')?.value).toBe(3);
    expect(loadValue(load, { ...at, connections: 1 }, 'loadP50')).toBeNull();
    expect(loadValue([step({ p50: null })], at, 'loadP50')).toBeNull();
    expect(loadValue([step({ p99: null })], at, 'loadP99')).toBeNull();
    expect(loadValue([step({ achievedRps: null })], at, 'achievedRps')).toBeNull();
    expect(loadValue([step({ requests: 0, errors: 0 })], at, 'errorRate')).toBeNull();
    expect(loadValue([step({}), step({ errors: null })], at, 'errorRate')).toBeNull();
    expect(loadValue([step({}), step({ requests: null })], at, 'errorRate')).toBeNull();
  });
  it('samePoint compares every coordinate; a missing config is the null one', () => {
    expect(samePoint(at, { ...at })).toBe(true);
    expect(samePoint(at, { mode: 'both', connections: 64, targetRps: 1000 })).toBe(true);
    expect(samePoint(null, at)).toBe(false);
    expect(samePoint(at, undefined)).toBe(false);
    expect(samePoint(at, { ...at, mode: 'http' })).toBe(false);
    expect(samePoint(at, { ...at, connections: 8 })).toBe(false);
    expect(samePoint(at, { ...at, targetRps: 5 })).toBe(false);
    expect(samePoint(at, { ...at, config: 'x' })).toBe(false);
  });
  it('metricOf: data-plane metrics at the point, the others from the run', () => {
    expect(isLoadMetric('loadP99')).toBe(true);
    expect(isLoadMetric('p99')).toBe(false);
    const facts = {
      values: { p99: { value: 7, accuracy: null } },
      load: [step({ achievedRps: 12 })],
      pooledChanges: null,
    };
    expect(metricOf(facts, 'achievedRps', at)).toEqual({ value: 12, accuracy: null });
    expect(metricOf(facts, 'achievedRps', null)).toBeNull();
    expect(metricOf(facts, 'p99', null)).toEqual({ value: 7, accuracy: null });
    expect(metricOf(facts, 'p50', at)).toBeNull();
  });
});
