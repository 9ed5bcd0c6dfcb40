import type { RunHeadline } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { commitOf, headlineText, topologyText } from './run-row.ts';

const RUN = '00000000-0000-4000-8000-000000000000';

describe('headlineText', () => {
  it("writes a propagation run's P99 and share within 1 s, as the Consul benchmark does", () => {
    const h: RunHeadline = {
      runId: RUN,
      kind: 'propagation',
      changeId: 'c1',
      count: 178_000,
      p99: { p: 99, ms: 815.2 },
      withinMs: 1000,
      withinFraction: 0.966,
    };
    expect(headlineText(h)).toBe('P99 815.2 ms · 96.6 % ≤ 1 s');
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
      rps: 3000,
      p99: { p: 99, ms: 4.237 },
    };
    expect(headlineText(h)).toBe('P99 4.24 ms at 3,000 rps');
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
