import { useNavigate, useSearchParams } from 'react-router';
import { HistoryChart } from '../../../charts/HistoryChart.tsx';
import {
  changePointMarks,
  forScenario,
  historyMeshes,
  historyRows,
  historyScenarios,
  metricOptions,
} from '../../../charts/prepare/history.ts';
import { useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { useRunFacets } from '../../runs/hooks/use-runs.ts';
import { ChangePointsPanel } from '../components/ChangePointsPanel.tsx';
import { HistoryFilters } from '../components/HistoryFilters.tsx';
import { HistoryTable } from '../components/HistoryTable.tsx';
import { useHistoryQuery } from '../hooks/use-history-query.ts';
import '../history.css';

export function HistoryPage() {
  const [params, setParams] = useSearchParams();
  const field = (f: string) => params.get(f) || undefined;
  const facets = useRunFacets();
  const { query, metric, history } = useHistoryQuery(params, setParams, facets.data);
  const options = metricOptions(history.data?.metrics ?? [], metric);
  const loadPoint = history.data?.loadPoint ?? null;
  const dataPlane = ['loadP50', 'loadP99', 'achievedRps', 'errorRate'].includes(metric);
  const navigate = useNavigate();
  useDocumentTitle(query.benchmark ? `History of ${query.benchmark}` : 'History');
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  const scenarios = history.data ? historyScenarios(history.data) : [];
  const scenario = field('scenario') ?? scenarios[0]?.scenario;
  const shown = history.data && scenario ? forScenario(history.data, scenario) : history.data;
  const rows = shown ? historyRows(shown) : [];
  const pooled = rows.some((r) => r.over !== '');
  const meshes = shown ? historyMeshes(shown) : [];
  const marks = shown ? changePointMarks(shown) : [];
  // A real time axis by default; commit order (one step per run) on ?axis=order.
  const byTime = params.get('axis') !== 'order';

  return (
    <div className="history-page">
      <h1>History</h1>
      <p className="muted">
        One metric of each run, oldest first, for one scenario at a time: propagation (of the run's
        change, or pooled over every change of a churn run), scale-up or data plane (a step's
        generators merged), whichever the runs have. Click a point to open its run.
      </p>
      <HistoryFilters
        params={params}
        set={set}
        benchmarks={facets.data?.benchmarks ?? []}
        metric={metric}
        options={options}
        scenario={scenario}
        scenarios={scenarios}
        byTime={byTime}
        dataPlane={dataPlane}
        loadPoint={loadPoint}
      />
      {!query.benchmark ? (
        <p className="muted">Choose a benchmark.</p>
      ) : history.isPending ? (
        <Loading what="history" />
      ) : history.isError ? (
        <ErrorMessage error={history.error} what="history" />
      ) : rows.length === 0 ? (
        <p className="muted">No runs match.</p>
      ) : (
        <>
          {dataPlane && (
            <p className="muted" data-testid="history-load-point">
              {loadPoint
                ? `At the load point: mode ${loadPoint.mode}, ${loadPoint.connections ?? 'unknown'} connections, ${loadPoint.targetRps === null ? 'max' : loadPoint.targetRps} RPS target${loadPoint.config === null ? '' : `, config ${loadPoint.config}`}.`
                : 'These runs have no load results.'}
            </p>
          )}
          {pooled && (
            <p className="muted" data-testid="history-pooled">
              Runs with several changes (churn runs) are read pooled over every first application of
              every change, not by their first change: the table says over how many.
            </p>
          )}
          <div className="panel">
            <HistoryChart
              rows={rows}
              meshes={meshes}
              marks={marks}
              metric={metric}
              byTime={byTime}
              onOpenRun={(runId) => navigate(`/runs/${runId}`)}
            />
          </div>
          {history.data && (
            <ChangePointsPanel
              detection={history.data.detection}
              marks={marks}
              rows={rows}
              metric={metric}
            />
          )}
          <HistoryTable rows={rows} metric={metric} pooled={pooled} />
        </>
      )}
    </div>
  );
}
