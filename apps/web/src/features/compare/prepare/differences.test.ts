import { describe, expect, it } from 'vitest';
import { type ComparedRunFacts, whatDiffers } from './differences.ts';

const run = (over: Partial<ComparedRunFacts> = {}): ComparedRunFacts => ({
  benchmark: 'global-scale',
  scenario: 'endpoint-propagation',
  platform: 'nomad',
  topology: { nodes: 1000, services: 20, instances: 20000, servers: 5 },
  ...over,
});
const change = (id: string, expected: number | null) => ({ id, expected });

describe('whatDiffers', () => {
  it('says nothing when only the mesh differs', () => {
    expect(whatDiffers([run(), run(), run()], [change('c', 20000), change('c', 20000)])).toEqual(
      [],
    );
  });
  it('names the proxy counts of the compared changes', () => {
    expect(whatDiffers([run(), run()], [change('c', 178000), change('c', 2000)])).toEqual([
      { field: 'proxies', text: '178,000 vs 2,000 proxies' },
    ]);
  });
  it('names a different scenario, benchmark and platform, in run order', () => {
    const d = whatDiffers([
      run(),
      run({ scenario: 'route-update', benchmark: 'small', platform: null }),
    ]);
    expect(d).toEqual([
      { field: 'benchmark', text: 'benchmark: global-scale vs small' },
      { field: 'scenario', text: 'scenario: endpoint-propagation vs route-update' },
      { field: 'platform', text: 'platform: nomad vs unknown' },
    ]);
  });
  it('names topology differences, an unknown size included', () => {
    const d = whatDiffers([
      run({ topology: { nodes: 10000, servers: 5 } }),
      run({ topology: { nodes: 1000, servers: 5 } }),
      run({ topology: { servers: 5 } }),
    ]);
    expect(d).toEqual([{ field: 'nodes', text: '10,000 vs 1,000 vs unknown nodes' }]);
  });
  it('says when the changes compared are not the same change', () => {
    expect(whatDiffers([run(), run()], [change('a', 10), change('b', 10)])).toEqual([
      { field: 'change', text: 'change: a vs b' },
    ]);
    // A run without the change: unknown proxies, no change.
    expect(whatDiffers([run(), run()], [change('a', 10), null])).toEqual([
      { field: 'proxies', text: '10 vs unknown proxies' },
      { field: 'change', text: 'change: a vs none' },
    ]);
  });
});
