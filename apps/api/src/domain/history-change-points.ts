// The change points of a history: its points cut into series (one scenario, one mesh, one
// branch), each series' values given to the change-point detection in run order.
import type { HistoryChangePoint, HistoryPoint } from '@meshbench/schema';
import { changePoints } from './change-points.ts';

export interface Detection {
  maxPValue: number;
  minMagnitude: number;
  minSegment: number;
  windowLen: number;
}

/** Points oldest first; a point without a value is left out of its series. */
export function historyChangePoints(
  points: readonly HistoryPoint[],
  detection: Detection,
): HistoryChangePoint[] {
  const series = new Map<
    string,
    {
      key: Pick<HistoryChangePoint, 'scenario' | 'mesh' | 'branch'>;
      runs: HistoryPoint[];
    }
  >();
  for (const p of points) {
    if (p.value === null) continue;
    const branch = p.labels.branch ?? null;
    const id = JSON.stringify([p.scenario, p.mesh.name, branch]);
    let s = series.get(id);
    if (!s) {
      s = { key: { scenario: p.scenario, mesh: p.mesh.name, branch }, runs: [] };
      series.set(id, s);
    }
    s.runs.push(p);
  }
  const out: HistoryChangePoint[] = [];
  for (const { key, runs } of series.values()) {
    const values = runs.map((r) => r.value as number);
    for (const c of changePoints(values, detection).points) {
      out.push({
        ...key,
        runId: (runs[c.index] as HistoryPoint).runId,
        previousRunId: (runs[c.index - 1] as HistoryPoint).runId,
        before: c.meanBefore,
        after: c.meanAfter,
        change: c.forwardChange,
        pValue: c.pValue,
        alert: null,
      });
    }
  }
  return out;
}
