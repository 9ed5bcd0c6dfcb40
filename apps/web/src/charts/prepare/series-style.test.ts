import { describe, expect, it } from 'vitest';
import { MESH_COLORS } from './mesh-colors.ts';
import { seriesStyles } from './series-style.ts';

describe('seriesStyles', () => {
  it('keeps the mesh colour and dashes a second run of the same mesh', () => {
    expect(seriesStyles(['consul', 'istio', 'Consul', 'linkerd'])).toEqual([
      { color: MESH_COLORS.consul, dash: undefined },
      { color: MESH_COLORS.istio, dash: undefined },
      { color: MESH_COLORS.consul, dash: '6 3' },
      { color: MESH_COLORS.linkerd, dash: undefined },
    ]);
  });
});
