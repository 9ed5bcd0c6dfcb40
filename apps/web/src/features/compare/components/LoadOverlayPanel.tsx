// Data-plane results overlaid: the run page's load-result charts (features/load-results)
// with one line per run in its mesh's colour. Shown only when a run has load results.
import type { StoredLoadResult } from '@meshbench/schema';
import { useMemo } from 'react';
import { LoadResultsReport, type LoadResultsRun } from '../../load-results/index.ts';
import type { ComparedRun } from '../prepare/compared-runs.ts';

export function LoadOverlayPanel({
  runs,
  results,
}: {
  runs: ComparedRun[];
  /** One per run: undefined while it loads. */
  results: (StoredLoadResult[] | undefined)[];
}) {
  const data = useMemo<LoadResultsRun[]>(
    () =>
      runs.flatMap((r, i) => {
        const points = results[i];
        return points && points.length > 0
          ? [{ label: r.label, color: r.style.color, results: points }]
          : [];
      }),
    [runs, results],
  );
  if (data.length === 0) return null;
  const without = runs.filter((_, i) => results[i]?.length === 0).map((r) => r.label);
  return (
    <section className="compare-section" data-testid="load-overlay">
      <div className="section-head">
        <div>
          <h2>Data plane</h2>
          <p className="muted">
            Load test points of {data.map((d) => d.label).join(', ')}, overlaid
            {without.length > 0 && ` (${without.join(', ')}: none)`}
          </p>
        </div>
      </div>
      <LoadResultsReport data={data} />
    </section>
  );
}
