import type { StoredLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { prepareAddedLatency } from './load-added-latency.ts';
import { prepareLatencyVsConnections } from './load-latency.ts';
import { point, run } from './load-results.fixture.ts';
import {
  asRuns,
  connectionsAxis,
  DEFAULT_RUN_COLOR,
  defaultRateKey,
  rateGroups,
  rateOf,
  roundRate,
  settleSlice,
  sortModes,
  stepRows,
  valueAxis,
} from './load-results.ts';
import { prepareTailBand } from './load-tail-band.ts';

describe('asRuns', () => {
  it('takes one run as its bare results, or several runs as they are', () => {
    const results = [point('both', 2)];
    expect(asRuns(results)).toEqual([{ label: '', color: DEFAULT_RUN_COLOR, results }]);
    const runs = [run('istio', '#466bb0', results), run('linkerd', '#0e8f77', [])];
    expect(asRuns(runs)).toBe(runs);
    expect(asRuns([])).toEqual([]);
  });
});

describe('modes', () => {
  it('reads baseline, serveronly, clientonly, both, then the rest alphabetically', () => {
    expect(sortModes(['both', 'nomixer_both', 'baseline', 'serveronly', 'both', 'a'])).toEqual([
      'baseline',
      'serveronly',
      'both',
      'a',
      'nomixer_both',
    ]);
  });
});

describe('rates', () => {
  it('groups by target rate, or by the achieved rate to two digits without one', () => {
    expect(rateOf({ targetRps: 1000, achievedRps: 998.2 })).toEqual({
      key: 'target:1000',
      rps: 1000,
      kind: 'target',
      label: '1,000 RPS',
    });
    expect(rateOf({ targetRps: null, achievedRps: 998.2 }).key).toBe('achieved:1000');
    expect(rateOf({ targetRps: null, achievedRps: 1493 }).key).toBe('achieved:1500');
    expect(rateOf({ targetRps: null, achievedRps: null }).key).toBe('unknown');
    expect(roundRate(0.5)).toBe(0.5);
    expect(roundRate(0)).toBe(0);
  });

  it('shows first the rate that holds the connections sweep', () => {
    // The demo's shape: a 1,000 RPS sweep over connections, and a CPU sweep over rates at
    // 16 connections from a CSV that sets no target.
    const results = [
      point('baseline', 2),
      point('baseline', 4),
      point('both', 2),
      point('both', 4),
      point('both', 16, { targetRps: null, achievedRps: 100 }),
      point('both', 16, { targetRps: null, achievedRps: 500 }),
      point('both', 16, { targetRps: null, achievedRps: 1000 }),
    ];
    const groups = rateGroups(asRuns(results));
    expect(groups.map((g) => [g.key, g.points, g.sweepPoints])).toEqual([
      ['achieved:100', 1, 1],
      ['achieved:500', 1, 1],
      ['achieved:1000', 1, 1],
      ['target:1000', 4, 4],
    ]);
    expect(defaultRateKey(groups)).toBe('target:1000');
    expect(defaultRateKey([])).toBeNull();
  });

  // The demo's Locust run (locust --json at four stages, 2,500 to 1,250,000 users): each stage
  // its "Aggregated" total and a row per request name, at rates of their own and no target.
  const locustStage = (users: number, total: number, names: [string, number][]) => [
    point('http', users, {
      targetRps: null,
      achievedRps: total,
      labels: { name: 'Aggregated', aggregated: 'true' },
    }),
    ...names.map(([name, rps]) =>
      point('http', users, { targetRps: null, achievedRps: rps, labels: { name, method: 'GET' } }),
    ),
  ];
  const locust = [
    ...locustStage(2500, 1000.149, [['/user/[id]', 350.323]]),
    ...locustStage(12500, 5000.617, [['/user/[id]', 1750.594]]),
    ...locustStage(62500, 25007.123, [['/user/[id]', 8755.711]]),
    ...locustStage(1_250_000, 500053.511, [
      ['/product', 25011.154],
      ['/user/[id]', 175031.782],
    ]),
  ];

  it('opens a staged run at its top rate, the rate its headline is read at', () => {
    // Two stages' rows at ~25,000 RPS (stage 3's total, stage 4's /product) once made the
    // fullest "sweep": the chart opened there, 20 times below the headline's 500,054 RPS.
    const groups = rateGroups(asRuns(locust));
    expect(groups.map((g) => g.key)).toEqual([
      'achieved:1000',
      'achieved:5000',
      'achieved:25000',
      'achieved:500000',
    ]);
    expect(groups.every((g) => g.longestLine === 1)).toBe(true);
    expect(defaultRateKey(groups)).toBe('achieved:500000');
    // Had the names' rows counted, 25,000 would hold two stages: still not a sweep (no target).
    const named = [
      point('http', 62500, { targetRps: null, achievedRps: 25007 }),
      point('http', 1_250_000, { targetRps: null, achievedRps: 25011 }),
      point('http', 1_250_000, { targetRps: null, achievedRps: 500054 }),
    ];
    const withNames = rateGroups(asRuns(named));
    expect(withNames.find((g) => g.key === 'achieved:25000')?.longestLine).toBe(2);
    expect(defaultRateKey(withNames)).toBe('achieved:500000');
    // Three connection counts at one achieved rate do make a sweep.
    const swept = [...named, point('http', 2500, { targetRps: null, achievedRps: 24990 })];
    expect(defaultRateKey(rateGroups(asRuns(swept)))).toBe('achieved:25000');
  });

  it('draws a step by its total, never the share of one request name', () => {
    const rows = stepRows(locust);
    expect(rows.map((r) => r.achievedRps)).toEqual([1000.149, 5000.617, 25007.123, 500053.511]);
    const { slice } = settleSlice(asRuns(locust), 'rps', null);
    expect(slice).toEqual({ axis: 'rps', key: 'connections:2500' });
    // Without a total (ghz names its report), a named row is the step.
    const ghz = [point('grpc', 50, { labels: { name: 'unary' } })];
    expect(stepRows(ghz)).toEqual(ghz);
    // A generator's share is never drawn.
    const share = point('http', 50, { generator: 'gen-1' });
    expect(stepRows([...ghz, share])).toEqual(ghz);
  });
});

describe('axes', () => {
  it('puts a tick on each connection count, with room at both ends', () => {
    expect(connectionsAxis([2, 4, 8, 64, 4])).toEqual({
      scale: 'log',
      domain: [1.6, 80],
      ticks: [2, 4, 8, 64],
    });
    expect(connectionsAxis([16])).toEqual({ scale: 'log', domain: [8, 32], ticks: [16] });
    expect(connectionsAxis([0])).toBeNull();
  });

  it('runs values from 0 to a round number', () => {
    // 4 / 5 = 0.8 -> a step of 1.
    expect(valueAxis([0.4, 3.57])).toEqual({
      scale: 'linear',
      domain: [0, 4],
      ticks: [0, 1, 2, 3, 4],
    });
    // Negative values (a mode faster than its baseline) reach below 0.
    expect(valueAxis([-0.3, 2.2]).domain).toEqual([-0.3, 2.5]);
    expect(valueAxis([]).domain).toEqual([0, 1]);
  });
});

describe('percentile accuracy in the tables', () => {
  // Fortio-style points: P99 from the histogram, in the bucket [P99 - 1, P99 + 1] ms; the rest exact.
  const withAccuracy = (r: StoredLoadResult): StoredLoadResult => ({
    ...r,
    percentiles: r.percentiles.map((x) =>
      x.p === 99
        ? { ...x, exact: false, method: 'tool-histogram', lower: x.ms - 1, upper: x.ms + 1 }
        : { ...x, exact: true, method: 'raw' },
    ),
  });
  const runs = asRuns([
    withAccuracy(point('baseline', 2, { p50: 0.5, p90: 0.8, p99: 1 })),
    withAccuracy(point('both', 2, { p50: 1, p90: 2, p99: 5 })),
    point('both', 4, { p50: 2, p90: 3, p99: 6 }),
  ]);
  it('marks each estimated percentile and gives its bucket', () => {
    const l = prepareLatencyVsConnections(runs, 'target:1000', 90);
    const both2 = l.table.find((r) => r.mode === 'both' && r.connections === 2);
    expect(both2?.marked.p99.text).toBe('~5.00 ms');
    expect(both2?.marked.p99.description).toBe(
      'estimated by tool-histogram: between 4.00 ms and 6.00 ms',
    );
    expect(both2?.marked.p50.text).toBe('1.00 ms');
    expect(both2?.marked.p50.certainty).toBe('exact');
    // A point whose source said nothing of accuracy: no mark, no claim.
    const both4 = l.table.find((r) => r.connections === 4);
    expect(both4?.marked.p99.text).toBe('6.00 ms');
    expect(both4?.marked.p99.certainty).toBe('unknown');
    expect(both4?.marked.p99.description).toBeNull();
  });
  it('calls an added latency an estimate when either percentile is one', () => {
    const p99 = prepareAddedLatency(runs, 'target:1000', 99);
    expect(p99.table.map((r) => [r.connections, r.addedMs, r.addedFromEstimate])).toEqual([
      [2, 4, true],
    ]);
    const p50 = prepareAddedLatency(runs, 'target:1000', 50);
    expect(p50.table.map((r) => [r.connections, r.addedMs, r.addedFromEstimate])).toEqual([
      [2, 0.5, false],
    ]);
    expect(p50.table[0]?.marked.baselineMs.certainty).toBe('exact');
  });
  it('carries the marks into the tail band', () => {
    const b = prepareTailBand(runs, 'target:1000', 5);
    expect(
      b.table.map((r) => [r.mode, r.connections, r.marked.p50.text, r.marked.p99.text]),
    ).toEqual([
      ['baseline', 2, '0.500 ms', '~1.00 ms'],
      ['both', 2, '1.00 ms', '~5.00 ms'],
      ['both', 4, '2.00 ms', '6.00 ms'],
    ]);
    // P99 / P50 of an estimated P99 is computed from an estimate; of two unmarked ones, not.
    expect(b.table.map((r) => r.ratioFromEstimate)).toEqual([true, true, false]);
  });
});
