import { describe, expect, it } from 'vitest';
import { prepareProxyResources } from './load-proxy-resources.ts';
import { point, run } from './load-results.fixture.ts';
import { asRuns, DEFAULT_RUN_COLOR } from './load-results.ts';

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
      stat: 'mean',
      hasMax: { cpu: false, memory: false },
      cpu: null,
      memory: null,
      table: [],
    });
  });

  it('draws the peak when asked, and keeps mean and peak in the table', () => {
    const points = [
      point('both', 16, {
        targetRps: null,
        achievedRps: 3000,
        clientCpuCores: 0.9,
        clientCpuCoresMax: 1.2,
        serverCpuCores: 0.8,
        serverCpuCoresMax: null,
      }),
    ];
    const max = prepareProxyResources(asRuns(points), 'max');
    expect(max.hasMax).toEqual({ cpu: true, memory: false });
    // Only the client reports a peak: one line, at 1.2 cores (the seed's "1.2 vCPUs at 3000 RPS").
    expect(max.cpu?.rows).toEqual([{ x: 3000, s0_both_16_client: 1.2 }]);
    expect(max.memory).toBeNull();
    const mean = prepareProxyResources(asRuns(points), 'mean');
    expect(mean.cpu?.rows).toEqual([{ x: 3000, s0_both_16_client: 0.9, s0_both_16_server: 0.8 }]);
    expect(mean.table[0]).toMatchObject({
      clientCpuCores: 0.9,
      clientCpuCoresMax: 1.2,
      serverCpuCores: 0.8,
      serverCpuCoresMax: null,
    });
  });
});
