// One colour per mesh, the same on every page, so overlaid runs read at a glance.

export const MESH_COLORS = {
  consul: '#ca2171',
  istio: '#466bb0',
  linkerd: '#0e8f77',
  other: '#6b7280',
} as const;

export type MeshKey = keyof typeof MESH_COLORS;

/** "Consul", "istio-ambient", "linkerd2" name their mesh family; anything else is other. */
export function meshKey(name: string): MeshKey {
  const n = name.trim().toLowerCase();
  for (const key of ['consul', 'istio', 'linkerd'] as const) {
    if (n === key || new RegExp(`^${key}(\\d|[-_ ])`).test(n)) return key;
  }
  return 'other';
}

export function meshColor(name: string): string {
  return MESH_COLORS[meshKey(name)];
}
