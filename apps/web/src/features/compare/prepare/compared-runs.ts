// The runs of a comparison as the charts name and draw them: a series key, a label that
// tells them apart, the mesh colour (dashed for a second run of the same mesh).
import type { Run } from '@meshbench/schema';
import { type SeriesStyle, seriesStyles } from '../../../charts/prepare/series-style.ts';

/** What a comparison shows of a run: no share id or project, as a report holds it. */
export type RunFacts = Omit<Run, 'slug' | 'projectId'>;

export interface ComparedRun {
  /** "r0" for the baseline, "r1"...: a chart data key that no mesh name can break. */
  key: string;
  label: string;
  style: SeriesStyle;
  run: RunFacts;
}

const meshLabel = (r: RunFacts) => `${r.mesh.name}${r.mesh.version ? ` ${r.mesh.version}` : ''}`;

/** Runs in the order given, the baseline first; equal labels get "#2", "#3". */
export function comparedRuns(runs: RunFacts[]): ComparedRun[] {
  const styles = seriesStyles(runs.map((r) => r.mesh.name));
  const seen = new Map<string, number>();
  return runs.map((run, i) => {
    const base = meshLabel(run);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return {
      key: `r${i}`,
      label: n === 1 ? base : `${base} #${n}`,
      style: styles[i] as SeriesStyle,
      run,
    };
  });
}
