// `/`: the runs, one page of 50 at a time, filtered, searched and sorted by the URL's query,
// each with its headline number; pick two to four runs to compare them. The picks are kept for
// the tab (session storage), so Compare -> Back finds them again.
import { type Run, run as runSchema } from '@meshbench/schema';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { comparePath } from '../../../api/urls.ts';
import { useDocumentTitle } from '../../../ui/document-title.ts';
import { MeshName } from '../../../ui/MeshName.tsx';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { DemoProgress } from '../components/DemoProgress.tsx';
import { isFiltered, RunFilters } from '../components/RunFilters.tsx';
import { MAX_COMPARED, RunsTable } from '../components/RunsTable.tsx';
import {
  nextSort,
  pageCount,
  pageRange,
  parseRunListParams,
  type RunListState,
  runListApiQuery,
  runListSearch,
} from '../hooks/run-list-url.ts';
import { useRunFacets, useRunHeadlines, useRunList } from '../hooks/use-runs.ts';
import './runs-list.css';

function Pager({
  page,
  pages,
  range,
  onPage,
}: {
  page: number;
  pages: number;
  range: string;
  onPage: (page: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="button"
        data-testid="page-prev"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        ‹ Previous
      </button>
      <span className="pager-range" data-testid="page-range">
        {range}
      </span>
      <button
        type="button"
        className="button"
        data-testid="page-next"
        disabled={page >= pages}
        onClick={() => onPage(page + 1)}
      >
        Next ›
      </button>
    </nav>
  );
}

/** The runs picked to compare, the first being the baseline. */
function CompareTray({
  picked,
  onRemove,
  onClear,
}: {
  picked: Run[];
  onRemove: (id: string) => void;
  onClear: () => void;
}) {
  const navigate = useNavigate();
  const ready = picked.length >= 2 && picked.length <= MAX_COMPARED;
  return (
    <div className="compare-tray" data-testid="compare-tray">
      <span className="muted">
        {picked.length === 0
          ? `Pick 2 to ${MAX_COMPARED} runs to compare them; the first is the baseline.`
          : 'Compare:'}
      </span>
      {picked.map((run, i) => (
        <span key={run.id} className="tray-chip">
          <span className="pick-order">{i + 1}</span>
          <MeshName name={run.mesh.name} version={run.mesh.version} />
          {i === 0 && <span className="baseline-tag">baseline</span>}
          <button
            type="button"
            aria-label={`remove ${run.mesh.name} from the comparison`}
            onClick={() => onRemove(run.id)}
          >
            ×
          </button>
        </span>
      ))}
      {picked.length > 0 && (
        <>
          <button
            type="button"
            className="button button-primary"
            data-testid="compare-button"
            disabled={!ready}
            onClick={() => navigate(comparePath(picked.map((r) => r.id)))}
          >
            Compare {picked.length > 1 ? picked.length : ''} runs
          </button>
          <button type="button" className="button" onClick={onClear}>
            Clear picks
          </button>
        </>
      )}
    </div>
  );
}

const PICKS_KEY = 'meshbench.compare-picks';

/** The picks kept for this tab; none when there are none or they no longer parse. */
function storedPicks(): Run[] {
  try {
    const parsed = runSchema
      .array()
      .safeParse(JSON.parse(sessionStorage.getItem(PICKS_KEY) ?? '[]'));
    return parsed.success ? parsed.data.slice(0, MAX_COMPARED) : [];
  } catch {
    return [];
  }
}

export function RunsListPage() {
  const [params, setParams] = useSearchParams();
  const state = parseRunListParams(params);
  const runs = useRunList(runListApiQuery(state));
  const facets = useRunFacets();
  const headlines = useRunHeadlines(runs.data?.runs.map((r) => r.id) ?? []);
  // Picks survive filtering and paging, and leaving the page for Compare and coming back.
  const [picked, setPicked] = useState<Run[]>(storedPicks);
  useEffect(() => {
    if (picked.length > 0) sessionStorage.setItem(PICKS_KEY, JSON.stringify(picked));
    else sessionStorage.removeItem(PICKS_KEY);
  }, [picked]);
  useDocumentTitle(isFiltered(state.filters) ? 'Runs (filtered)' : 'Runs');

  const go = (next: RunListState) => setParams(runListSearch(next));
  const total = runs.data?.total ?? 0;
  const shown = runs.data?.runs.length ?? 0;
  const range = pageRange(state.page, shown, total);
  const pages = pageCount(total);

  return (
    <>
      <div className="page-head">
        <h1>Runs</h1>
        {runs.data && (
          <p className="muted" data-testid="run-count">
            {range}
          </p>
        )}
      </div>
      <DemoProgress />
      <RunFilters
        value={state.filters}
        facets={facets.data}
        labelErrors={state.labelErrors}
        onChange={(filters) => go({ filters, sort: state.sort, page: 1 })}
      />
      <CompareTray
        picked={picked}
        onRemove={(id) => setPicked((p) => p.filter((r) => r.id !== id))}
        onClear={() => setPicked([])}
      />
      {runs.isPending ? (
        <Loading what="runs" />
      ) : runs.isError ? (
        <ErrorMessage error={runs.error} what="runs" />
      ) : runs.data.runs.length === 0 ? (
        <p className="state">
          {isFiltered(state.filters) ? (
            <>
              No runs match these filters. <Link to="/">Show every run</Link>
            </>
          ) : state.page > 1 ? (
            'No runs on this page.'
          ) : (
            'No runs yet.'
          )}
        </p>
      ) : (
        <div aria-busy={runs.isPlaceholderData} className="runs-list">
          <RunsTable
            runs={runs.data.runs}
            headlines={headlines.data}
            sort={state.sort}
            onSort={(column) =>
              go({ filters: state.filters, sort: nextSort(state.sort, column), page: 1 })
            }
            picked={picked.map((r) => r.id)}
            onPick={(run, pick) =>
              setPicked((p) =>
                pick
                  ? p.length < MAX_COMPARED && !p.some((r) => r.id === run.id)
                    ? [...p, run]
                    : p
                  : p.filter((r) => r.id !== run.id),
              )
            }
          />
          <Pager
            page={state.page}
            pages={pages}
            range={range}
            onPage={(page) => go({ ...state, page })}
          />
        </div>
      )}
    </>
  );
}
