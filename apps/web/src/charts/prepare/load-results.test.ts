import type { StoredLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  asRuns,
  connectionsAxis,
  DEFAULT_RUN_COLOR,
  defaultRateKey,
  errorCodes,
  formatCores,
  formatMiB,
  formatRatio,
  formatRpsCell,
  type LoadResultsRun,
  markKey,
  percentOfTargetAxis,
  prepareAddedLatency,
  prepareErrors,
  prepareLatencyVsConnections,
  prepareProxyResources,
  prepareTailBand,
  prepareThroughput,
  rateGroups,
  rateOf,
  roundRate,
  sortModes,
  valueAxis,
} from './load-results.ts';

let nextId = 1;
/** A load result with nothing measured but what the case sets. */
function point(
  mode: string,
  connections: number | null,
  set: Partial<StoredLoadResult> & { p50?: number; p90?: number; p99?: number } = {},
): StoredLoadResult {
  const { p50, p90, p99, ...rest } = set;
  const percentiles = [
    ...(p50 === undefined ? [] : [{ p: 50, ms: p50 }]),
    ...(p90 === undefined ? [] : [{ p: 90, ms: p90 }]),
    ...(p99 === undefined ? [] : [{ p: 99, ms: p99 }]),
  ];
  return {
    id: nextId++,
    format: 'fortio',
    mode,
    connections,
    targetRps: 1000,
    achievedRps: 1000,
    durationMs: 30_000,
    requests: 30_000,
    errors: 0,
    errorsByCode: {},
    percentiles,
    histogram: null,
    minMs: null,
    meanMs: null,
    maxMs: null,
    stdDevMs: null,
    clientCpuCores: null,
    serverCpuCores: null,
    clientMemMiB: null,
    serverMemMiB: null,
    clientCpuCoresMax: null,
    serverCpuCoresMax: null,
    clientMemMiBMax: null,
    serverMemMiBMax: null,
    labels: {},
    startedAt: null,
    ...rest,
  };
}

const run = (label: string, color: string, results: StoredLoadResult[]): LoadResultsRun => ({
  label,
  color,
  results,
});

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

  it('shows % of target from 95 % unless a point fell further', () => {
    // 4 % of the 95-100 span above the top: 100.2.
    expect(percentOfTargetAxis([99.8, 99.9])).toEqual({
      scale: 'linear',
      domain: [95, 100.2],
      ticks: [95, 96, 97, 98, 99, 100],
    });
    // 80.2 -> 80 (down to a multiple of 5); 100.3 -> 101, + 4 % of 21 = 101.84.
    const low = percentOfTargetAxis([80.2, 100.3]);
    expect(low.domain[0]).toBe(80);
    expect(low.domain[1]).toBeCloseTo(101.84, 12);
  });
});

describe('latency vs connections', () => {
  const older = point('both', 4, { p50: 9.9 });
  const results = [
    point('baseline', 2, { p50: 0.4, p90: 0.6, p99: 0.9 }),
    point('baseline', 4, { p50: 0.5, p90: 0.7, p99: 1.0 }),
    point('both', 2, { p50: 1.9, p90: 3.0, p99: 5.0 }),
    older,
    point('both', 4, { p50: 2.0, p90: 3.1, p99: 5.2 }),
    point('both', 8, { targetRps: 2000, p50: 7 }),
    point('serveronly', null, { p50: 1 }),
  ];

  it('draws one line per mode at one rate, the later of a repeated point', () => {
    const l = prepareLatencyVsConnections(asRuns(results), 'target:1000', 50);
    expect(l.superseded).toBe(1);
    expect(l.lines?.series).toEqual([
      { key: 's0_baseline', label: 'baseline', color: '#374151', dash: '4 3' },
      { key: 's0_both', label: 'both', color: DEFAULT_RUN_COLOR, dash: '' },
    ]);
    expect(l.lines?.rows).toEqual([
      { x: 2, s0_baseline: 0.4, s0_both: 1.9 },
      { x: 4, s0_baseline: 0.5, s0_both: 2.0 },
    ]);
    expect(l.lines?.x.ticks).toEqual([2, 4]);
    // 2.0 -> 2; 2 / 5 = 0.4 -> a step of 0.5.
    expect(l.lines?.y.ticks).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(l.table.map((r) => [r.mode, r.connections, r.p50, r.p90, r.p99])).toEqual([
      ['baseline', 2, 0.4, 0.6, 0.9],
      ['baseline', 4, 0.5, 0.7, 1.0],
      ['both', 2, 1.9, 3.0, 5.0],
      ['both', 4, 2.0, 3.1, 5.2],
    ]);
  });

  it('draws the percentile asked for', () => {
    const l = prepareLatencyVsConnections(asRuns(results), 'target:1000', 99);
    expect(l.lines?.rows).toEqual([
      { x: 2, s0_baseline: 0.9, s0_both: 5.0 },
      { x: 4, s0_baseline: 1.0, s0_both: 5.2 },
    ]);
    // 5.2 -> 6 (the 1-1.2-1.5-2-2.5-3-4-5-6 steps); 6 / 5 = 1.2 -> a step of 2.
    expect(l.lines?.y).toEqual({ scale: 'linear', domain: [0, 6], ticks: [0, 2, 4, 6] });
  });

  it('overlays runs in their colours, modes told apart by dashes', () => {
    const runs = [
      run('istio', '#466bb0', [point('baseline', 2, { p50: 1 }), point('both', 2, { p50: 3 })]),
      run('linkerd', '#0e8f77', [point('both', 2, { p50: 2 })]),
    ];
    const l = prepareLatencyVsConnections(runs, 'target:1000', 50);
    expect(l.lines?.series).toEqual([
      { key: 's0_baseline', label: 'istio · baseline', color: '#466bb0', dash: '1 4' },
      { key: 's0_both', label: 'istio · both', color: '#466bb0', dash: '' },
      { key: 's1_both', label: 'linkerd · both', color: '#0e8f77', dash: '' },
    ]);
    expect(l.lines?.rows).toEqual([{ x: 2, s0_baseline: 1, s0_both: 3, s1_both: 2 }]);
  });

  it('has no lines without a point at the rate', () => {
    expect(prepareLatencyVsConnections(asRuns(results), 'target:5', 50).lines).toBeNull();
    expect(prepareLatencyVsConnections([], null, 50).lines).toBeNull();
  });
});

describe('added latency over baseline', () => {
  it('subtracts the baseline at the same connections, per run', () => {
    const a = prepareAddedLatency(
      asRuns([
        point('baseline', 2, { p50: 0.4 }),
        point('baseline', 4, { p50: 0.5 }),
        point('both', 2, { p50: 1.9 }),
        point('both', 4, { p50: 2.0 }),
        point('serveronly', 8, { p50: 1.2 }),
      ]),
      'target:1000',
      50,
    );
    expect(a.hasBaseline).toBe(true);
    expect(a.withoutBaseline).toBe(1);
    // 1.9 - 0.4 = 1.5 (375 % of 0.4); 2.0 - 0.5 = 1.5 (300 % of 0.5).
    expect(a.table.map((r) => [r.mode, r.connections, r.ms, r.baselineMs])).toEqual([
      ['both', 2, 1.9, 0.4],
      ['both', 4, 2.0, 0.5],
    ]);
    expect(a.table[0]?.addedMs).toBeCloseTo(1.5, 12);
    expect(a.table[0]?.addedFraction).toBeCloseTo(3.75, 12);
    expect(a.table[1]?.addedFraction).toBeCloseTo(3, 12);
    expect(a.lines?.series.map((s) => s.key)).toEqual(['s0_both']);
    expect(a.lines?.rows.map((r) => r.x)).toEqual([2, 4]);
    expect(a.lines?.y.domain).toEqual([0, 1.5]);
  });

  it('never takes another run’s baseline', () => {
    const a = prepareAddedLatency(
      [
        run('istio', '#466bb0', [point('baseline', 2, { p50: 1 })]),
        run('linkerd', '#0e8f77', [point('both', 2, { p50: 2 })]),
      ],
      'target:1000',
      50,
    );
    expect(a.table).toEqual([]);
    expect(a.withoutBaseline).toBe(1);
    expect(a.lines).toBeNull();
  });
});

describe('proxy CPU and memory', () => {
  it('plots client and server side against the achieved rate', () => {
    const sweep = [
      point('both', 16, {
        targetRps: null,
        achievedRps: 1000,
        clientCpuCores: 0.5,
        serverCpuCores: 0.425,
        clientMemMiB: 64.5,
        serverMemMiB: 57.8,
      }),
      point('both', 16, {
        targetRps: null,
        achievedRps: 100,
        clientCpuCores: 0.05,
        serverCpuCores: 0.044,
        clientMemMiB: 62.25,
        serverMemMiB: 56,
      }),
      point('both', 2, { p50: 1 }),
    ];
    const r = prepareProxyResources(asRuns(sweep));
    expect(r.cpu?.series).toEqual([
      { key: 's0_both_16_client', label: 'client', color: DEFAULT_RUN_COLOR, dash: '' },
      { key: 's0_both_16_server', label: 'server', color: DEFAULT_RUN_COLOR, dash: '6 3' },
    ]);
    expect(r.cpu?.rows).toEqual([
      { x: 100, s0_both_16_client: 0.05, s0_both_16_server: 0.044 },
      { x: 1000, s0_both_16_client: 0.5, s0_both_16_server: 0.425 },
    ]);
    expect(r.cpu?.x).toEqual({
      scale: 'linear',
      domain: [0, 1000],
      ticks: [0, 200, 400, 600, 800, 1000],
    });
    expect(r.cpu?.y.ticks).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(r.memory?.rows[1]).toEqual({
      x: 1000,
      s0_both_16_client: 64.5,
      s0_both_16_server: 57.8,
    });
    // 64.5 -> 80; 80 / 5 = 16 -> 20.
    expect(r.memory?.y.ticks).toEqual([0, 20, 40, 60, 80]);
    expect(r.context).toBe('both · 16 connections');
    expect(r.table.map((t) => [t.rps, t.clientCpuCores])).toEqual([
      [100, 0.05],
      [1000, 0.5],
    ]);
  });

  it('names the run and what differs when lines would read the same', () => {
    const r = prepareProxyResources([
      run('istio', '#466bb0', [
        point('both', 16, { achievedRps: 900, clientCpuCores: 1 }),
        point('serveronly', 16, { achievedRps: 900, serverCpuCores: 0.5 }),
      ]),
      run('linkerd', '#0e8f77', [point('both', 16, { achievedRps: 900, clientCpuCores: 0.4 })]),
    ]);
    expect(r.cpu?.series.map((s) => [s.label, s.color])).toEqual([
      ['istio · serveronly · server', '#466bb0'],
      ['istio · both · client', '#466bb0'],
      ['linkerd · both · client', '#0e8f77'],
    ]);
    expect(r.memory).toBeNull();
    expect(r.context).toBe('16 connections');
  });

  it('has nothing to draw without measurements', () => {
    expect(prepareProxyResources(asRuns([point('both', 2)]))).toEqual({
      context: '',
      cpu: null,
      memory: null,
      table: [],
    });
  });
});

describe('achieved vs target rate', () => {
  it('gives the achieved rate as a share of the target', () => {
    const t = prepareThroughput(
      asRuns([
        point('both', 2, { achievedRps: 998 }),
        point('both', 4, { achievedRps: 950 }),
        point('both', 8, { achievedRps: null }),
      ]),
      'target:1000',
    );
    expect(t.noTarget).toBe(false);
    expect(t.table.map((r) => [r.connections, r.fraction])).toEqual([
      [2, 0.998],
      [4, 0.95],
    ]);
    expect(t.lines?.rows).toEqual([
      { x: 2, s0_both: 99.8 },
      { x: 4, s0_both: 95 },
    ]);
    expect(t.lines?.y.domain).toEqual([95, 100.2]);
  });

  it('says when the rate has no target', () => {
    const t = prepareThroughput(
      asRuns([point('both', 16, { targetRps: null, achievedRps: 500 })]),
      'achieved:500',
    );
    expect(t.noTarget).toBe(true);
    expect(t.lines).toBeNull();
  });
});

describe('errors', () => {
  it('counts errors per point, by code, largest first', () => {
    expect(errorCodes({ '503': 2, '-1': 5, '500': 2 })).toEqual([
      { code: '-1', count: 5 },
      { code: '500', count: 2 },
      { code: '503', count: 2 },
    ]);
    const e = prepareErrors(
      asRuns([
        point('baseline', 2, { errors: 0 }),
        point('both', 2, { errors: 3, requests: 300, errorsByCode: { '503': 3 } }),
        point('both', 4, { errors: null }),
      ]),
      'target:1000',
    );
    expect(e.total).toBe(3);
    expect(e.table.map((r) => [r.mode, r.connections, r.errors, r.fraction])).toEqual([
      ['baseline', 2, 0, 0],
      ['both', 2, 3, 0.01],
    ]);
    expect(e.bars?.rows).toEqual([{ x: 2, s0_baseline: 0, s0_both: 3 }]);
    // 3 -> 3; 3 / 4 = 0.75 -> 1.
    expect(e.bars?.y.ticks).toEqual([0, 1, 2, 3]);
  });
});

describe('tail band', () => {
  it('marks the points whose P99 reaches the limit times P50', () => {
    const b = prepareTailBand(
      asRuns([
        point('both', 2, { p50: 1, p99: 5 }),
        point('both', 4, { p50: 2, p99: 6 }),
        point('both', 8, { p50: 0, p99: 6 }),
      ]),
      'target:1000',
      5,
    );
    expect(b.table.map((r) => [r.connections, r.ratio, r.over])).toEqual([
      [2, 5, true],
      [4, 3, false],
    ]);
    expect(b.over).toBe(1);
    expect(b.lines?.rows).toEqual([
      { x: 2, s0_both: 5, [markKey('s0_both')]: true },
      { x: 4, s0_both: 3, [markKey('s0_both')]: false },
    ]);
    // Room above the 5x line: 5.5 -> 6.
    expect(b.lines?.y.domain).toEqual([0, 6]);
    expect(
      prepareTailBand(asRuns([point('both', 2, { p50: 1, p99: 5 })]), 'target:1000', 6).over,
    ).toBe(0);
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
    expect(both2?.marked.p99.text).toBe('~5.00');
    expect(both2?.marked.p99.description).toBe(
      'estimated by tool-histogram: between 4.00 ms and 6.00 ms',
    );
    expect(both2?.marked.p50.text).toBe('1.00');
    expect(both2?.marked.p50.certainty).toBe('exact');
    // A point whose source said nothing of accuracy: no mark, no claim.
    const both4 = l.table.find((r) => r.connections === 4);
    expect(both4?.marked.p99.text).toBe('6.00');
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
      ['baseline', 2, '0.500', '~1.00'],
      ['both', 2, '1.00', '~5.00'],
      ['both', 4, '2.00', '6.00'],
    ]);
    // P99 / P50 of an estimated P99 is computed from an estimate; of two unmarked ones, not.
    expect(b.table.map((r) => r.ratioFromEstimate)).toEqual([true, true, false]);
  });
});

describe('number formats', () => {
  it('writes cores, MiB, ratios and rates as the tables show them', () => {
    expect(formatCores(0.499799)).toBe('0.5');
    expect(formatCores(2.080446)).toBe('2.08');
    expect(formatCores(null)).toBe('—');
    expect(formatMiB(64.5)).toBe('64.5');
    expect(formatMiB(56)).toBe('56.0');
    expect(formatRatio(9.436664 / 3.569941)).toBe('2.6×');
    expect(formatRpsCell(998.2225684886798)).toBe('998.22');
    expect(formatRpsCell(1000)).toBe('1,000');
    expect(formatRpsCell(null)).toBe('—');
  });
});
