import type { Run } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { MESH_COLORS, MESH_SHADES } from '../../../charts/prepare/mesh-colors.ts';
import { comparedRuns } from './compared-runs.ts';

// Only the mesh matters here; the cast keeps the fixture to the fields that do.
const run = (name: string, version: string | null) =>
  ({
    id: `${name}-${version}`,
    benchmark: 'b',
    scenario: 's',
    mesh: { name, version },
    platform: null,
    topology: {},
    environment: null,
    labels: {},
    status: 'finished',
    startedAt: '2026-02-01T10:00:00Z',
    finishedAt: null,
    createdAt: '2026-02-01T10:00:00Z',
    changes: 1,
  }) as unknown as Omit<Run, 'slug'>;

describe('comparedRuns', () => {
  it('keys, labels and styles the runs, the baseline first', () => {
    const runs = comparedRuns([run('consul', '1.9.5'), run('istio', null), run('consul', '1.9.5')]);
    expect(runs.map((r) => [r.key, r.label, r.style.color, r.style.dash])).toEqual([
      ['r0', 'consul 1.9.5', MESH_COLORS.consul, undefined],
      ['r1', 'istio', MESH_COLORS.istio, undefined],
      ['r2', 'consul 1.9.5 #2', MESH_SHADES.consul[0], '6 3'],
    ]);
  });
});
