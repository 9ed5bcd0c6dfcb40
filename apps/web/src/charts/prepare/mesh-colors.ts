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

/**
 * A second and third run of one mesh: a darker and a lighter colour of the same hue, so that
 * two Istio runs are two colours, both read as Istio.
 */
export const MESH_SHADES: Record<MeshKey, readonly [string, string]> = {
  consul: ['#7d1145', '#e47aa9'],
  istio: ['#1f3b73', '#8eaee6'],
  linkerd: ['#07574a', '#5fc8b3'],
  other: ['#374151', '#a8aeb8'],
};

/** The colour of the n-th run (0-based) of a mesh: its own colour, then its shades. */
export function meshShade(name: string, n: number): string {
  const key = meshKey(name);
  if (n <= 0) return MESH_COLORS[key];
  return MESH_SHADES[key][(n - 1) % 2] as string;
}
