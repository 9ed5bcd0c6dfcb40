// `/`: every run, newest first, filtered by the URL's mesh/benchmark/scenario.
import { useSearchParams } from 'react-router';
import type { RunFilters as Filters } from '../../../api/urls.ts';
import { formatCount } from '../../../charts/prepare/format.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { FILTER_KEYS, RunFilters } from '../components/RunFilters.tsx';
import { RunsTable } from '../components/RunsTable.tsx';
import { useRuns } from '../hooks/use-runs.ts';

export function RunsListPage() {
  const [params, setParams] = useSearchParams();
  const filters: Filters = {};
  for (const key of FILTER_KEYS) {
    const v = params.get(key);
    if (v) filters[key] = v;
  }
  const runs = useRuns(filters);
  return (
    <>
      <div className="page-head">
        <h1>Runs</h1>
        {runs.data && (
          <p className="muted">
            {runs.data.runs.length < runs.data.total
              ? `newest ${formatCount(runs.data.runs.length)} of ${formatCount(runs.data.total)}`
              : `${formatCount(runs.data.total)} ${runs.data.total === 1 ? 'run' : 'runs'}`}
          </p>
        )}
      </div>
      <RunFilters value={filters} onChange={(next) => setParams(next as Record<string, string>)} />
      {runs.isPending ? (
        <Loading what="runs" />
      ) : runs.isError ? (
        <ErrorMessage error={runs.error} what="runs" />
      ) : runs.data.runs.length === 0 ? (
        <p className="state">No runs match these filters.</p>
      ) : (
        <RunsTable runs={runs.data.runs} />
      )}
    </>
  );
}
