import { describe, expect, it } from 'vitest';
import { commitOf, topologyText } from './run-row.ts';

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
