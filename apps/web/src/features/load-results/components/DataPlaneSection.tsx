// The run page's data-plane section: every load-result chart when the run has results. The
// view (axis, group, percentiles, limit) is kept in the page's URL. (The upload form is behind
// the run's "Add results" action: reading a run is not writing to it.)
import type { Run } from '@meshbench/schema';
import { useMemo } from 'react';
import { runResultsUrl } from '../../../api/urls.ts';
import { formatCount } from '../../../charts/prepare/format.ts';
import { loadVerdicts } from '../../../charts/prepare/load-verdicts.ts';
import { meshColor } from '../../../charts/prepare/mesh-colors.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { percentilesQuery } from '../hooks/load-view.ts';
import { useLoadResults } from '../hooks/use-load-results.ts';
import { useLoadView } from '../hooks/use-load-view.ts';
import { LoadResultsReport } from './LoadResultsReport.tsx';
import { RunnerVerdicts } from './RunnerVerdicts.tsx';
import '../load-results.css';

export function DataPlaneSection({ run }: { run: Run }) {
  const [view, setView] = useLoadView();
  const results = useLoadResults(run.id, percentilesQuery(view));
  const data = useMemo(
    () =>
      results.data && results.data.length > 0
        ? [{ label: run.mesh.name, color: meshColor(run.mesh.name), results: results.data }]
        : null,
    [results.data, run.mesh.name],
  );
  const verdicts = useMemo(() => loadVerdicts(results.data ?? []), [results.data]);
  const formats = useMemo(
    () => [...new Set((results.data ?? []).map((r) => r.format))].join(', '),
    [results.data],
  );
  return (
    <section className="data-plane" data-testid="data-plane-section">
      {results.isPending ? (
        <Loading what="load results" />
      ) : results.isError ? (
        <ErrorMessage error={results.error} what="the load results" />
      ) : (
        data && (
          <>
            <header className="change-head data-plane-head">
              <h2>Data plane</h2>
              <p className="muted">
                {formatCount(results.data.length)} load-test point
                {results.data.length === 1 ? '' : 's'} ({formats}) ·{' '}
                <a href={runResultsUrl(run.id)} data-testid="results-json">
                  as JSON
                </a>
              </p>
            </header>
            <RunnerVerdicts verdicts={verdicts} />
            <LoadResultsReport data={data} view={view} onView={setView} />
          </>
        )
      )}
    </section>
  );
}
