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
