import type { LoadStages, PercentileValue } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  dataPlaneHeadline,
  type HeadlinePoint,
  overBaseline,
  peakPerSecond,
  scaleUpHeadline,
  stagesHeadline,
} from './run-headline.ts';

const point = (over: Partial<HeadlinePoint> & { p99: number }): HeadlinePoint => {
  const { p99, ...rest } = over;
  const percentiles: PercentileValue[] = [{ p: 99, ms: p99 }];
  return {
    mode: 'both',
    connections: 64,
    targetRps: 1000,
    achievedRps: 990,
    percentiles,
    generator: null,
    labels: {},
    merged: null,
    ...rest,
  };
};

describe('dataPlaneHeadline', () => {
  it("reads a step of several generators by its merged row, never one generator's own P99", () => {
    // The stages demo's top step: three generators, the slowest one's own P99 153.7 ms, the
    // merged P99 39.5 ms. Before, the slowest row at the top rate won: 153.7.
    const rows = [
      point({ generator: 'gen-a', p99: 30.1 }),
      point({ generator: 'gen-b', p99: 31.2 }),
      point({ generator: 'gen-c', p99: 153.7 }),
      point({ p99: 39.5, merged: { generators: [{}, {}, {}] } }),
    ];
    expect(dataPlaneHeadline(rows)).toEqual({
      mode: 'both',
      connections: 64,
      config: null,
      rps: 1000,
      p99: { p: 99, ms: 39.5 },
      generators: 3,
      repeats: 1,
      overBaseline: null,
    });
  });

  it('takes the slowest step at the top rate, naming its configuration and repeats', () => {
    const rows = [
      point({ targetRps: 500, p99: 90 }),
      point({ p99: 12, labels: { config: 'none_mtls' } }),
      point({ p99: 14, labels: { config: 'v2-stats-nullvm' } }),
      point({ p99: 13, labels: { config: 'v2-stats-nullvm' } }),
    ];
    expect(dataPlaneHeadline(rows)).toMatchObject({
      rps: 1000,
      config: 'v2-stats-nullvm',
      p99: { ms: 14 },
      generators: null,
      repeats: 2,
    });
  });

  it('falls back to the achieved rate, and is null without points', () => {
    expect(
      dataPlaneHeadline([point({ targetRps: null, achievedRps: 2000, p99: 3 })]),
    ).toMatchObject({ rps: 2000, p99: { ms: 3 } });
    expect(dataPlaneHeadline([])).toBeNull();
  });
});

const step = (mode: string, connections: number, targetRps: number, p50: number, p99: number) =>
  point({
    mode,
    connections,
    targetRps,
    p99,
    percentiles: [
      { p: 50, ms: p50 },
      { p: 99, ms: p99 },
    ],
  });

describe('overBaseline', () => {
  it('pairs a step with the baseline at its rate and connections, the most added P99 at the top rate', () => {
    const rows = [
      step('baseline', 16, 1000, 0.5, 1.2),
      step('baseline', 64, 1000, 1.1, 2.5),
      step('both', 16, 1000, 1.4, 3.3),
      step('both', 64, 1000, 2.2, 5.0),
      step('serveronly', 64, 1000, 1.7, 4.0),
      // No baseline at 4,000 RPS: not a pair, though it is the top rate.
      step('both', 16, 4000, 1.5, 9.0),
    ];
    expect(overBaseline(rows)).toMatchObject({
      mode: 'both',
      connections: 64,
      rps: 1000,
      p50: { ms: 2.2 },
      p99: { ms: 5.0 },
      baselineP50: { ms: 1.1 },
      baselineP99: { ms: 2.5 },
    });
  });

  it('pairs only within a configuration (one session of a perf CSV)', () => {
    const cfg = (x: HeadlinePoint, config: string) => ({ ...x, labels: { config } });
    const rows = [
      cfg(step('baseline', 16, 1000, 0.3, 0.6), 'none_mtls'),
      cfg(step('both', 16, 1000, 2.5, 9.0), 'v2-stats-nullvm'),
      cfg(step('both', 16, 1000, 1.8, 2.8), 'none_mtls'),
    ];
    expect(overBaseline(rows)).toMatchObject({ config: 'none_mtls', p99: { ms: 2.8 } });
  });

  it('is null when no step has a baseline beside it', () => {
    expect(overBaseline([step('both', 16, 1000, 1, 2), step('baseline', 8, 1000, 1, 2)])).toBe(
      null,
    );
  });
});

const slot = (p50: number, p99: number, exact = true) => ({
  startMs: 0,
  durationMs: 1000,
  requests: 1,
  errors: 0,
  rps: 1,
  errorRate: 0,
  generators: 1,
  percentiles: [
    { p: 50, ms: p50, accuracy: { exact, method: exact ? ('raw' as const) : ('hdr' as const) } },
    { p: 99, ms: p99, accuracy: { exact, method: exact ? ('raw' as const) : ('hdr' as const) } },
  ],
});
const stage = (targetRps: number, achievedRps: number) => ({
  mode: 'http',
  connections: 16,
  targetRps,
  fromMs: 0,
  toMs: 1000,
  achievedRps,
  requests: 1,
  errors: 0,
  errorRate: 0,
  percentiles: [],
  generators: [],
});

describe('stagesHeadline', () => {
  it('counts intervals whose P99 stays strictly under 5 x P50, and the top stage held at 95 %', () => {
    const view: LoadStages = {
      intervalMs: 1000,
      series: [slot(2, 9.99), slot(2, 10), slot(2, 3), slot(1, 6)],
      stages: [stage(1000, 1000), stage(500_000, 475_000), stage(5000, 4000)],
    };
    expect(stagesHeadline(view)).toEqual({
      targetRps: 500_000,
      achievedRps: 475_000,
      held: true,
      limit: 5,
      intervalMs: 1000,
      intervals: 4,
      under: 2,
      fromEstimates: false,
    });
    const short = { ...view, stages: [stage(500_000, 474_999)] };
    expect(stagesHeadline(short)?.held).toBe(false);
  });

  it('says when the count rests on estimates, and is null without intervals', () => {
    const view: LoadStages = { intervalMs: 1000, series: [slot(2, 3, false)], stages: [] };
    expect(stagesHeadline(view)).toMatchObject({ fromEstimates: true, held: false, under: 1 });
    expect(stagesHeadline({ intervalMs: 0, series: [], stages: [] })).toBeNull();
  });
});

describe('scale-up rates', () => {
  it('counts the busiest whole second from the run start', () => {
    const start = 10_000;
    // 999 ms and 1,000 ms after the start fall in different seconds.
    expect(peakPerSecond([start + 999, start + 1000, start + 1500, start + 1999], start)).toBe(3);
    expect(peakPerSecond([], start)).toBeNull();
  });

  it('gives the mean over the time to the last of the total, null when not all arrived', () => {
    const firsts = [1000, 2000, 3000, 4000];
    const h = scaleUpHeadline([{ phase: 'joined', attrsTotal: null, firsts }], {}, 0);
    expect(h).toMatchObject({ count: 4, total: 4, timeToAllMs: 4000, meanPerS: 1, peakPerS: 1 });
    const short = scaleUpHeadline([{ phase: 'joined', attrsTotal: 8, firsts }], {}, 0);
    expect(short).toMatchObject({ timeToAllMs: null, meanPerS: null });
  });
});

describe('scaleUpHeadline: which phase, and the rank of the last of its total', () => {
  it('joined when the run has it, else the phase with most entities; null without phases', () => {
    const phases = [
      { phase: 'registered', attrsTotal: null, firsts: [1000, 2000, 3000] },
      { phase: 'joined', attrsTotal: null, firsts: [5000] },
    ];
    expect(scaleUpHeadline(phases, {}, 0)?.phase).toBe('joined');
    expect(scaleUpHeadline(phases.slice(0, 1), {}, 0)?.phase).toBe('registered');
    const two = [
      { phase: 'a', attrsTotal: null, firsts: [1000] },
      { phase: 'b', attrsTotal: null, firsts: [1000, 2000] },
    ];
    expect(scaleUpHeadline(two, {}, 0)?.phase).toBe('b');
    expect(scaleUpHeadline([], {}, 0)).toBeNull();
  });
  it('time to all from the start; no rate when it took no time', () => {
    // 4 of 4 (rank ceil(4) = 4, the 4th first arrival, 4,000) from a start at 500: 3,500 ms,
    // 4 / 3.5 s per second.
    const h = scaleUpHeadline(
      [{ phase: 'joined', attrsTotal: 4, firsts: [1000, 2000, 3000, 4000] }],
      {},
      500,
    );
    expect(h).toMatchObject({ count: 4, total: 4, timeToAllMs: 3500 });
    expect(h?.meanPerS).toBeCloseTo(4 / 3.5, 12);
    const at = (start: number) =>
      scaleUpHeadline([{ phase: 'joined', attrsTotal: null, firsts: [1000] }], {}, start);
    expect(at(1000)).toMatchObject({ timeToAllMs: 0, meanPerS: null });
    expect(at(2000)).toMatchObject({ timeToAllMs: -1000, meanPerS: null });
  });
  it("counts seconds from the run's start, not from zero", () => {
    // From 300: 1,200 and 1,400 are 0.9 s and 1.1 s in, two different seconds.
    expect(peakPerSecond([1200, 1400], 300)).toBe(1);
    expect(peakPerSecond([1200, 1400, 1500], 300)).toBe(2);
  });
});

describe('overBaseline: the pair and the number', () => {
  const base = (over: Partial<HeadlinePoint> & { p99: number }) =>
    point({ mode: 'baseline', ...over });
  it('the most P99 added over its baseline, at the top rate that has a pair', () => {
    const points = [
      point({ mode: 'http', p99: 10 }),
      base({ p99: 9 }),
      point({ mode: 'grpc', p99: 8 }),
      point({ mode: 'tcp', targetRps: 500, p99: 100 }),
      base({ targetRps: 500, p99: 1 }),
    ];
    // At 1,000 RPS: http adds 1 ms, grpc adds -1 ms: http. At 500 RPS tcp adds 99 ms, but
    // 1,000 RPS is the top rate with a pair.
    expect(overBaseline(points)).toMatchObject({ mode: 'http', rps: 1000 });
    const more = [
      point({ mode: 'http', p99: 10 }),
      base({ p99: 9 }),
      point({ mode: 'grpc', connections: 16, p99: 8 }),
      base({ connections: 16, p99: 2 }),
    ];
    // http adds 1 ms over its baseline, grpc (16 connections) 6 ms: grpc.
    expect(overBaseline(more)?.mode).toBe('grpc');
  });
  it('skips a baseline without a P99 for the next, and a step without one', () => {
    const noP99 = point({ mode: 'baseline', p99: 0 });
    noP99.percentiles = [];
    expect(overBaseline([point({ p99: 5 }), noP99, base({ p99: 2 })])?.baselineP99?.ms).toBe(2);
    const stepNoP99 = point({ p99: 0 });
    stepNoP99.percentiles = [{ p: 50, ms: 1 }];
    expect(overBaseline([stepNoP99, base({ p99: 2 })])).toBeNull();
    // No target rate: not paired, even with a baseline of no target rate.
    expect(
      overBaseline([point({ targetRps: null, p99: 5 }), base({ targetRps: null, p99: 1 })]),
    ).toBeNull();
  });
});

describe('stagesHeadline: the top stage and the intervals read', () => {
  it('reads P50 and P99 by name, skips intervals without both, and ties keep the first stage', () => {
    const reversed = slot(2, 9);
    reversed.percentiles.reverse();
    const onlyP50 = slot(2, 9);
    onlyP50.percentiles = onlyP50.percentiles.slice(0, 1);
    const mixed = slot(2, 30);
    (mixed.percentiles[1] as { accuracy: { exact: boolean } }).accuracy.exact = false;
    const view: LoadStages = {
      intervalMs: 1000,
      series: [reversed, onlyP50, mixed],
      stages: [stage(1000, 990), stage(1000, 500)],
    };
    // reversed: 9 < 5 x 2, under; mixed: 30 not under, and its P99 is an estimate.
    expect(stagesHeadline(view)).toMatchObject({
      targetRps: 1000,
      achievedRps: 990,
      held: true,
      intervals: 2,
      under: 1,
      fromEstimates: true,
    });
  });
  it('a stage without a target is read at its achieved rate; without either, not held', () => {
    const noTarget = { ...stage(0, 2000), targetRps: null };
    const view: LoadStages = {
      intervalMs: 1000,
      series: [slot(1, 2)],
      stages: [stage(1000, 1000), noTarget],
    };
    expect(stagesHeadline(view)).toMatchObject({ targetRps: null, achievedRps: 2000, held: false });
    const noAchieved = { ...stage(3000, 0), achievedRps: null };
    expect(stagesHeadline({ ...view, stages: [noAchieved, stage(500, 500)] })).toMatchObject({
      targetRps: 3000,
      achievedRps: null,
      held: false,
    });
  });
});
