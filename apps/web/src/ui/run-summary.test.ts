import type { RunHeadline } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { runSummary } from './run-summary.ts';

const runId = '00000000-0000-4000-8000-000000000000';
const raw = { exact: true, method: 'raw' as const };

describe('runSummary', () => {
  it("writes a propagation run as Consul's benchmark does", () => {
    const h: RunHeadline = {
      runId,
      kind: 'propagation',
      summary: 'change',
      changes: 1,
      changeId: 'c1',
      count: 20_098,
      expected: 20_110,
      lastMs: 295_000,
      p50: { p: 50, ms: 72.5, ...raw },
      p99: { p: 99, ms: 212_900, ...raw },
      withinMs: 1000,
      withinFraction: 0.969,
      worst: null,
    };
    expect(runSummary(h)).toBe(
      '20,098 of 20,110 proxies in 295.0 s; P50 72.5 ms, P99 212.9 s; 96.9 % within 1 s',
    );
    // A report frozen before the sentence's numbers were kept: what it has, nothing invented.
    const old = { ...h, expected: undefined, lastMs: undefined, p50: undefined };
    expect(runSummary(old)).toBe('20,098 proxies; P99 212.9 s; 96.9 % within 1 s');
  });

  it('says a churn run is pooled over its changes and names the worst', () => {
    const h: RunHeadline = {
      runId,
      kind: 'propagation',
      summary: 'pooled',
      changes: 20,
      changeId: null,
      count: 20_000,
      expected: null,
      lastMs: 9_000,
      p50: { p: 50, ms: 80, ...raw },
      p99: { p: 99, ms: 5295.555, ...raw },
      withinMs: 1000,
      withinFraction: 0.96825,
      worst: { changeId: 'churn-13', p99Ms: 7862.357 },
    };
    expect(runSummary(h)).toBe(
      '20,000 first applications over 20 changes in 9.000 s; P50 80.0 ms, P99 5.296 s; 96.8 % within 1 s; worst change churn-13: P99 7.862 s',
    );
  });

  it("writes a scale-up as Nomad's C2M does", () => {
    const h: RunHeadline = {
      runId,
      kind: 'scale-up',
      phase: 'scheduled',
      count: 3000,
      total: 3000,
      timeToAllMs: 557_000,
      meanPerS: 3000 / 557,
      peakPerS: 14,
    };
    expect(runSummary(h)).toBe('3,000 instances scheduled in 9 min 17 s (5.39/s mean, 14/s peak)');
    expect(runSummary({ ...h, count: 312, timeToAllMs: null, meanPerS: null })).toBe(
      '312 of 3,000 instances scheduled; not all arrived',
    );
  });

  it('writes the latency over the baseline, marked when read from estimates', () => {
    const reported = { exact: false, method: 'reported' as const };
    const h: RunHeadline = {
      runId,
      kind: 'data-plane',
      mode: 'both',
      connections: 16,
      config: null,
      rps: 4000,
      p99: { p: 99, ms: 20, ...reported },
      generators: null,
      repeats: 1,
      overBaseline: {
        mode: 'both',
        connections: 16,
        rps: 1000,
        config: null,
        p50: { p: 50, ms: 4, ...raw },
        p99: { p: 99, ms: 12, ...raw },
        baselineP50: { p: 50, ms: 1, ...raw },
        baselineP99: { p: 99, ms: 2, ...raw },
      },
      stages: null,
    };
    expect(runSummary(h)).toBe(
      '+3.00 ms P50, +10.0 ms P99 over the baseline at 1,000 RPS and 16 connections (both)',
    );
    const est = { ...h.overBaseline!, p99: { p: 99, ms: 12, ...reported } };
    expect(runSummary({ ...h, overBaseline: est })).toBe(
      '+3.00 ms P50, ~+10.0 ms P99 over the baseline at 1,000 RPS and 16 connections (both)',
    );
    expect(runSummary({ ...h, overBaseline: null })).toBe(
      'P99 ~20.0 ms at 4,000 RPS and 16 connections',
    );
  });

  it("writes a stages run as Istio's 500k test does", () => {
    const h: RunHeadline = {
      runId,
      kind: 'data-plane',
      mode: 'http',
      connections: 1024,
      config: null,
      rps: 500_000,
      p99: null,
      generators: 3,
      repeats: 1,
      stages: {
        targetRps: 500_000,
        achievedRps: 500_000,
        held: true,
        limit: 5,
        intervalMs: 1000,
        intervals: 300,
        under: 274,
        fromEstimates: false,
      },
    };
    expect(runSummary(h)).toBe('500,000 RPS held, P99 under 5x median in 274 of 300 seconds');
    const short = { ...h.stages!, achievedRps: 410_000, held: false, fromEstimates: true };
    expect(runSummary({ ...h, stages: short })).toBe(
      '500,000 RPS not held (410,000 achieved), P99 under 5x median in ~274 of 300 seconds',
    );
    const tens = { ...h.stages!, intervalMs: 10_000, intervals: 30, under: 27 };
    expect(runSummary({ ...h, stages: tens })).toBe(
      '500,000 RPS held, P99 under 5x median in 27 of 30 intervals of 10 s',
    );
  });
});
