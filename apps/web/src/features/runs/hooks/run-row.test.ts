import type { RunHeadline } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { commitOf, headlineText, topologyText } from './run-row.ts';

const RUN = '00000000-0000-4000-8000-000000000000';

describe('headlineText', () => {
  it("writes a propagation run's P99 and share within 1 s, as the Consul benchmark does", () => {
    const h: RunHeadline = {
      runId: RUN,
      kind: 'propagation',
      summary: 'change',
      changes: 1,
      changeId: 'c1',
      count: 178_000,
      p99: { p: 99, ms: 815.2 },
      withinMs: 1000,
      withinFraction: 0.966,
      worst: null,
    };
    expect(headlineText(h)).toBe('P99 815.2 ms · 96.6 % ≤ 1 s');
  });
  it('says a churn run is pooled over its changes, and names the worst change', () => {
    const h: RunHeadline = {
      runId: RUN,
      kind: 'propagation',
      summary: 'pooled',
      changes: 20,
      changeId: null,
      count: 20_000,
      p99: { p: 99, ms: 5295.6 },
      withinMs: 1000,
      withinFraction: 0.713,
      worst: { changeId: 'c7', p99Ms: 7862.4 },
    };
    expect(headlineText(h)).toBe(
      'P99 5,295.6 ms pooled over 20 changes · 71.3 % ≤ 1 s · worst c7 7,862.4 ms',
    );
  });
  it('writes how long a scale-up took to have all joined, or how many joined', () => {
    const base = { runId: RUN, kind: 'scale-up' as const, phase: 'joined', total: 1000 };
    expect(headlineText({ ...base, count: 1000, timeToAllMs: 51 * 60_000 })).toBe(
      'all 1,000 joined in 51 min 0 s',
    );
    expect(headlineText({ ...base, count: 312, timeToAllMs: null })).toBe('312 of 1,000 joined');
  });
  it("writes a data-plane run's P99 at its top rate", () => {
    const h: RunHeadline = {
      runId: RUN,
      kind: 'data-plane',
      mode: 'both',
      connections: 16,
      config: null,
      rps: 3000,
      p99: { p: 99, ms: 4.237 },
      generators: null,
      repeats: 1,
    };
    expect(headlineText(h)).toBe('P99 4.24 ms at 3,000 rps');
    expect(headlineText({ ...h, rps: 500_000, p99: { p: 99, ms: 39.5 }, generators: 3 })).toBe(
      'P99 39.5 ms at 500,000 rps, merged over 3 generators',
    );
    expect(headlineText({ ...h, config: 'v2-stats-nullvm' })).toBe(
      'P99 4.24 ms at 3,000 rps (v2-stats-nullvm)',
    );
  });
});

describe('topologyText', () => {
  it('names nodes and instances, or says there is none', () => {
    expect(topologyText({ topology: { nodes: 10_000, instances: 178_000 } })).toBe(
      '10,000 nodes · 178,000 instances',
    );
    expect(topologyText({ topology: { servers: 5 } })).toBe('—');
  });
});

describe('commitOf', () => {
  it('shortens a full hash to 12 characters and keeps other names whole', () => {
    const sha = '0123456789abcdef0123456789abcdef01234567';
    expect(commitOf({ labels: { sha } })).toEqual({ short: '0123456789ab', full: sha });
    expect(commitOf({ labels: { commit: 'v1.2-rc' } })).toEqual({
      short: 'v1.2-rc',
      full: 'v1.2-rc',
    });
    expect(commitOf({ labels: { branch: 'main' } })).toBeNull();
  });
});
