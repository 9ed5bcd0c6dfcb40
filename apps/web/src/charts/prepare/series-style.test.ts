import { describe, expect, it } from 'vitest';
import { MESH_COLORS, MESH_SHADES } from './mesh-colors.ts';
import { seriesStyles } from './series-style.ts';

describe('seriesStyles', () => {
  it('keeps the mesh colour, and gives a second run of the same mesh a shade and a dash', () => {
    expect(seriesStyles(['consul', 'istio', 'Consul', 'linkerd'])).toEqual([
      { color: MESH_COLORS.consul, dash: undefined },
      { color: MESH_COLORS.istio, dash: undefined },
      { color: MESH_SHADES.consul[0], dash: '6 3' },
      { color: MESH_COLORS.linkerd, dash: undefined },
    ]);
  });

  it('gives four runs of one mesh four different colours', () => {
    const colors = seriesStyles(['istio', 'istio', 'istio', 'linkerd']).map((s) => s.color);
    expect(colors).toEqual(['#466bb0', '#1f3b73', '#8eaee6', '#0e8f77']);
    expect(new Set(colors).size).toBe(4);
  });
});
