import type { LoadStages } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { markKey } from './load-results.ts';
import { elapsedAxis, formatClock, prepareStages, stagesRpsAxis } from './load-stages.ts';

const hdr = { exact: false, method: 'hdr' as const, relativeError: 0.001 };
const exact = { exact: true, method: 'raw' as const };

// Two 10 s stages of 10 s intervals: ~1k RPS then ~5k RPS, as the Istio 500k test stepped up.
const data: LoadStages = {
  intervalMs: 10_000,
  series: [
    {
      startMs: 0,
      durationMs: 10_000,
      requests: 10_000,
      errors: 0,
      rps: 1000,
      errorRate: 0,
      percentiles: [
        { p: 50, ms: 2, accuracy: hdr },
        { p: 99, ms: 8, accuracy: hdr },
      ],
      generators: 3,
    },
    {
      startMs: 10_000,
      durationMs: 10_000,
      requests: 50_000,
      errors: 50,
      rps: 5000,
      errorRate: 0.001,
      percentiles: [
        { p: 50, ms: 3, accuracy: hdr },
        { p: 99, ms: 16.5, accuracy: hdr },
      ],
      generators: 3,
    },
  ],
  stages: [
    {
      mode: 'both',
      connections: 64,
      targetRps: 1000,
      fromMs: 0,
      toMs: 10_000,
      achievedRps: 1000,
      requests: 10_000,
      errors: 0,
      errorRate: 0,
      percentiles: [
        { p: 50, ms: 2, accuracy: exact },
        { p: 99, ms: 8, accuracy: hdr },
      ],
      generators: [{ name: 'gen-1', achievedRps: 333.3, shortfall: false, saturated: false }],
    },
    {
      mode: 'both',
      connections: 64,
      targetRps: 5000,
      fromMs: 10_000,
      toMs: 20_000,
      achievedRps: 5000,
      requests: 50_000,
      errors: 50,
      errorRate: 0.001,
      percentiles: [
        { p: 50, ms: 3, accuracy: hdr },
        { p: 99, ms: 16.5, accuracy: hdr },
      ],
      generators: [
        { name: 'gen-1', achievedRps: 1700, shortfall: false, saturated: false },
        { name: 'gen-2', achievedRps: 1500, shortfall: true, saturated: true },
      ],
    },
  ],
};

describe('stages view', () => {
  it('draws each interval at its middle: rate, error rate in %, P50, P99 and N x P50', () => {
    const s = prepareStages(data, 5);
    expect(s.rps?.rows).toEqual([
      { x: 5, rps: 1000 },
      { x: 15, rps: 5000 },
    ]);
    // 50 of 50,000 = 0.1 %.
    expect(s.errors?.rows).toEqual([
      { x: 5, errorRate: 0 },
      { x: 15, errorRate: 0.1 },
    ]);
    // 8 < 5 x 2 = 10: within; 16.5 >= 5 x 3 = 15: over.
    expect(s.latency?.rows).toEqual([
      { x: 5, p50: 2, p99: 8, limit: 10, [markKey('p99')]: false },
      { x: 15, p50: 3, p99: 16.5, limit: 15, [markKey('p99')]: true },
    ]);
    expect([s.overIntervals, s.bandIntervals]).toEqual([1, 2]);
    // 20 s of intervals -> 0..20 s.
    expect(s.rps?.x).toEqual(elapsedAxis(20));
    expect(s.spans.map((x) => [x.fromS, x.toS, x.label])).toEqual([
      [0, 10, 'both · 1,000 RPS · 64 conn'],
      [10, 20, 'both · 5,000 RPS · 64 conn'],
    ]);
  });

  it('counts time from the first interval when the API stamps them in epoch ms', () => {
    const t0 = Date.parse('2026-02-05T09:00:00Z');
    const epoch: LoadStages = {
      ...data,
      series: data.series.map((i) => ({ ...i, startMs: i.startMs + t0 })),
      stages: data.stages.map((st) => ({ ...st, fromMs: st.fromMs + t0, toMs: st.toMs + t0 })),
    };
    expect(prepareStages(epoch, 5)).toEqual(prepareStages(data, 5));
  });

  it('moves the band with N', () => {
    // 16.5 / 3 = 5.5: within a limit of 6.
    const s = prepareStages(data, 6);
    expect(s.latency?.rows.map((r) => [r.limit, r[markKey('p99')]])).toEqual([
      [12, false],
      [18, false],
    ]);
    expect(s.table.map((r) => r.over)).toEqual([false, false]);
  });

  it('summarises each stage: ratio, over, flagged generators, marked percentiles', () => {
    const s = prepareStages(data, 5, [50, 99]);
    expect(s.table.map((r) => [r.ratio, r.over, r.flagged, r.ratioFromEstimate])).toEqual([
      [4, false, 0, true],
      [5.5, true, 1, true],
    ]);
    const first = s.table[0]?.percentiles;
    expect(first?.map((p) => [p.p, p.marked.text, p.marked.certainty])).toEqual([
      [50, '2.00 ms', 'exact'],
      [99, '~8.00 ms', 'estimate'],
    ]);
    expect(s.marks.get(15)?.p99.certainty).toBe('estimate');
  });

  it('has nothing to draw without intervals', () => {
    const s = prepareStages({ intervalMs: 1000, series: [], stages: [] }, 5);
    expect([s.rps, s.errors, s.latency, s.table]).toEqual([null, null, null, []]);
  });

  it('writes elapsed time as a clock', () => {
    expect([formatClock(0), formatClock(75), formatClock(3725)]).toEqual([
      '0:00',
      '1:15',
      '1:02:05',
    ]);
  });
});

describe('stages rate axis', () => {
  it("puts Istio's 1k, 5k, 25k and 500k steps on a log axis, a tick at each target", () => {
    const axis = stagesRpsAxis([999, 5001, 24_999, 486_667], [1000, 5000, 25_000, 500_000]);
    expect(axis).toEqual({
      scale: 'log',
      domain: [499.5, 750_000],
      ticks: [1000, 5000, 25_000, 500_000],
    });
  });

  it('stays linear from 0 when the rates span less than 20x', () => {
    const axis = stagesRpsAxis([1000, 5000, 19_000], [1000, 5000, 19_000]);
    expect(axis.scale).toBe('linear');
    expect(axis.domain[0]).toBe(0);
    // 20x is log: the boundary.
    expect(stagesRpsAxis([1000, 20_000], [null, null]).scale).toBe('log');
  });

  it('drops a zero rate from a log chart (it has no place on it)', () => {
    const axis = stagesRpsAxis([0, 1000, 500_000], []);
    expect(axis.scale).toBe('log');
    expect(axis.domain[0]).toBe(500);
  });
});
