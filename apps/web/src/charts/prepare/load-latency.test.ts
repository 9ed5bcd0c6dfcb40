import { describe, expect, it } from 'vitest';
import { prepareLatencyVsConnections } from './load-latency.ts';
import { point, run } from './load-results.fixture.ts';
import { asRuns, DEFAULT_RUN_COLOR } from './load-results.ts';

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

  it('draws one line per mode at one rate, a repeated point at its median', () => {
    // both at 4 connections twice: P50 9.9 and 2.0, lower median 2.0; P90 and P99 only in one.
    const l = prepareLatencyVsConnections(asRuns(results), 'target:1000', 50);
    expect(l.repeated).toBe(1);
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

describe('latency of several configurations and repeats (istio/tools benchmark.csv)', () => {
  // Rows of fixtures/public/istio-tools/benchmark.csv at qps 1000, mode both, P99 in ms: two
  // telemetry configurations, and each repeated at 16 connections by another commit's run.
  const row = (config: string, connections: number, p99: number, id: number) =>
    point('both', connections, { id, p99, labels: { config } });
  const v2 = 'v2-stats-nullvm';
  const none = 'none_mtls';
  const results = [
    row(v2, 2, 1.68, 1),
    row(v2, 4, 2.498, 2),
    row(v2, 8, 3.363, 3),
    row(v2, 16, 4.277, 4), // cadf887c
    row(v2, 16, 3.982, 5), // ecbc1c65
    row(v2, 32, 4.696, 6),
    row(none, 2, 1.491, 7),
    row(none, 8, 2.199, 8),
    row(none, 16, 2.73, 9), // ccdf912e
    row(none, 16, 2.186, 10), // ff93ac4f
    row(none, 32, 2.857, 11),
  ];

  it('draws each configuration as its own line, never one curve stitched from both', () => {
    const l = prepareLatencyVsConnections(asRuns(results), 'target:1000', 99);
    expect(l.lines?.series.map((s) => [s.key, s.label])).toEqual([
      ['s0_both_none_mtls', 'both · none_mtls'],
      ['s0_both_v2-stats-nullvm', 'both · v2-stats-nullvm'],
    ]);
    // Two configurations of one mode: two colours.
    const [a, b] = l.lines?.series ?? [];
    expect(a?.color).not.toBe(b?.color);
    // At 16 connections each line has its own point: the lower median of its two repeats.
    expect(l.lines?.rows.find((r) => r.x === 16)).toEqual({
      x: 16,
      s0_both_none_mtls: 2.186,
      's0_both_v2-stats-nullvm': 3.982,
    });
    expect(l.lines?.rows.find((r) => r.x === 4)).toEqual({
      x: 4,
      s0_both_none_mtls: null,
      's0_both_v2-stats-nullvm': 2.498,
    });
  });

  it('shows repeats as repeats: their count and range beside the median', () => {
    const l = prepareLatencyVsConnections(asRuns(results), 'target:1000', 99);
    expect(l.repeated).toBe(2);
    const at16 = l.table.filter((r) => r.x === 16);
    expect(at16.map((r) => [r.series, r.repeats, r.p99, r.range])).toEqual([
      ['both · none_mtls', 2, 2.186, { min: 2.186, max: 2.73 }],
      ['both · v2-stats-nullvm', 2, 3.982, { min: 3.982, max: 4.277 }],
    ]);
    expect(l.table.find((r) => r.x === 2 && r.config === v2)).toMatchObject({
      repeats: 1,
      range: null,
    });
  });
});
