import { describe, expect, it } from 'vitest';
import { MESH_COLORS, meshColor, meshKey } from './mesh-colors.ts';

describe('meshKey', () => {
  it('knows the three meshes whatever the case', () => {
    expect(meshKey('consul')).toBe('consul');
    expect(meshKey(' Istio ')).toBe('istio');
    expect(meshKey('LINKERD')).toBe('linkerd');
  });
  it('groups variants with their family', () => {
    expect(meshKey('istio-ambient')).toBe('istio');
    expect(meshKey('linkerd2')).toBe('linkerd');
    expect(meshKey('consul_connect')).toBe('consul');
  });
  it('puts everything else under other', () => {
    expect(meshKey('kuma')).toBe('other');
    expect(meshKey('consulish')).toBe('other');
    expect(meshKey('')).toBe('other');
  });
});

describe('meshColor', () => {
  it('gives each mesh its own fixed colour', () => {
    expect(meshColor('consul')).toBe('#ca2171');
    expect(meshColor('kuma')).toBe(MESH_COLORS.other);
    expect(new Set(Object.values(MESH_COLORS)).size).toBe(4);
  });
});
