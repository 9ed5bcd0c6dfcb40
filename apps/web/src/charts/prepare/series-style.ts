// How each run of a comparison is drawn: its mesh's fixed colour, and, when an earlier run of
// the same mesh took it, a shade of it (darker, then lighter) and a dash pattern, so that two
// runs of one mesh differ in colour as well as in dash.
import { meshKey, meshShade } from './mesh-colors.ts';

export interface SeriesStyle {
  color: string;
  /** An SVG stroke-dasharray, or undefined for a solid line. */
  dash: string | undefined;
}

/** Solid for the first run of a mesh, then dashed, dotted, dash-dot. */
export const DASHES = [undefined, '6 3', '2 3', '8 3 2 3'] as const;

export function seriesStyles(meshNames: string[]): SeriesStyle[] {
  const seen = new Map<string, number>();
  return meshNames.map((name) => {
    const key = meshKey(name);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return { color: meshShade(name, n), dash: DASHES[n % DASHES.length] };
  });
}
