// History: one metric (propagation, scale-up or data plane) across the runs of a benchmark,
// filtered by scenario, branch and mesh, all in the URL so a history is itself a link.
import type { HistoryMetric } from '@meshbench/schema';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { HistoryChart } from '../../../charts/HistoryChart.tsx';
import {
  changePointMarks,
  chosenMetric,
  defaultBenchmark,
  detectionSource,
  formatMetric,
  forScenario,
  historyMeshes,
  historyRows,
  historyScenarios,
  metricLabel,
  metricOptions,
} from '../../../charts/prepare/history.ts';
import { useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { useRunFacets } from '../../runs/hooks/use-runs.ts';
import { AlertTriage } from '../components/AlertTriage.tsx';
import { useHistory } from '../hooks/use-history.ts';
import '../history.css';

const FIELDS = ['benchmark', 'scenario', 'branch', 'mesh', 'connections', 'targetRps'] as const;

export function HistoryPage() {
  const [params, setParams] = useSearchParams();
  const field = (f: (typeof FIELDS)[number]) => params.get(f) || undefined;
  const number = (f: (typeof FIELDS)[number]) => {
    const v = Number(field(f));
    return field(f) !== undefined && Number.isFinite(v) ? v : undefined;
  };
  // The metrics the benchmark's runs have, from the last answer: a benchmark without
  // propagation opens on its first metric instead of an empty P99.
  const [offered, setOffered] = useState<{ benchmark: string; metrics: HistoryMetric[] } | null>(
    null,
  );
  const benchmark = field('benchmark');
  const metric = chosenMetric(
    params.get('metric'),
    offered && offered.benchmark === benchmark ? offered.metrics : null,
  );
  // Every scenario of the benchmark is read, and one shown: a history mixes none.
  const query = {
    metric,
    benchmark,
    branch: field('branch'),
    mesh: field('mesh'),
    connections: number('connections'),
    targetRps: number('targetRps'),
    limit: 500,
  };
  const facets = useRunFacets();
  // No benchmark in the URL: the one with the most runs, and its largest scenario, written
  // into the URL in place, so the page opens on a history and a copied link shows it.
  const opening =
    benchmark === undefined ? defaultBenchmark(facets.data?.benchmarkRuns ?? []) : null;
  const openBenchmark = opening?.benchmark;
  const openScenario = opening?.scenario;
  useEffect(() => {
    if (openBenchmark === undefined || openScenario === undefined) return;
    setParams(
      (s) => {
        const next = new URLSearchParams(s);
        next.set('benchmark', openBenchmark);
        if (!next.get('scenario')) next.set('scenario', openScenario);
        return next;
      },
      { replace: true },
    );
  }, [openBenchmark, openScenario, setParams]);
  const history = useHistory(query);
  const answered = history.data && !history.isPlaceholderData ? history.data : undefined;
  useEffect(() => {
    if (answered && benchmark) setOffered({ benchmark, metrics: answered.metrics });
  }, [answered, benchmark]);
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
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Benchmark
          <select
            data-testid="history-benchmark"
            value={params.get('benchmark') ?? ''}
            onChange={(e) => set('benchmark', e.target.value)}
          >
            <option value="">choose…</option>
            {facets.data?.benchmarks.map((b) => (
              <option key={b}>{b}</option>
            ))}
          </select>
        </label>
        <label>
          Metric
          <select
            data-testid="history-metric"
            value={metric}
            onChange={(e) => set('metric', e.target.value)}
          >
            {options.map((g) => (
              <optgroup key={g.group} label={g.group}>
                {g.metrics.map((m) => (
                  <option key={m.metric} value={m.metric}>
                    {m.label}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </label>
        <label>
          Scenario
          <select
            data-testid="history-scenario"
            value={scenario ?? ''}
            onChange={(e) => set('scenario', e.target.value)}
          >
            {scenarios.length === 0 && <option value="">—</option>}
            {scenario && !scenarios.some((x) => x.scenario === scenario) && (
              <option value={scenario}>{scenario} (no runs)</option>
            )}
            {scenarios.map((x) => (
              <option key={x.scenario} value={x.scenario}>
                {x.scenario} ({x.runs})
              </option>
            ))}
          </select>
        </label>
        <label>
          Axis
          <select
            data-testid="history-axis"
            value={byTime ? 'time' : 'order'}
            onChange={(e) => set('axis', e.target.value === 'order' ? 'order' : '')}
          >
            <option value="time">time</option>
            <option value="order">run order</option>
          </select>
        </label>
        {(['branch', 'mesh'] as const).map((f) => (
          <label key={f}>
            {f[0]?.toUpperCase()}
            {f.slice(1)}
            <input
              value={params.get(f) ?? ''}
              onChange={(e) => set(f, e.target.value)}
              placeholder="any"
            />
          </label>
        ))}
        {dataPlane && (
          <>
            <label>
              Connections
              <input
                data-testid="history-connections"
                inputMode="numeric"
                value={params.get('connections') ?? ''}
                onChange={(e) => set('connections', e.target.value)}
                placeholder={
                  loadPoint?.connections === null || !loadPoint
                    ? 'most'
                    : String(loadPoint.connections)
                }
              />
            </label>
            <label>
              Target RPS
              <input
                data-testid="history-target-rps"
                inputMode="numeric"
                value={params.get('targetRps') ?? ''}
                onChange={(e) => set('targetRps', e.target.value)}
                placeholder={
                  loadPoint?.targetRps === null || !loadPoint
                    ? 'highest'
                    : String(loadPoint.targetRps)
                }
              />
            </label>
          </>
        )}
      </form>
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
            <div className="panel" data-testid="history-change-points">
              <h2>Change points: {metricLabel(metric)}</h2>
              <p className="muted">
                E-Divisive means with a t-test over each series (one scenario, mesh and branch), as
                Apache Otava computes it: p ≤ {history.data.detection.maxPValue}, change ≥{' '}
                {(history.data.detection.minMagnitude * 100).toFixed(0)} %, at least{' '}
                {history.data.detection.minSegment} runs between two, so a single spike is none (
                {detectionSource(history.data.detection.source)}).
              </p>
              {marks.length === 0 ? (
                <p>No change point in these runs.</p>
              ) : (
                <div className="table-wrap">
                  <table className="data">
                    <thead>
                      <tr>
                        <th>Series</th>
                        <th>Last run before</th>
                        <th>First run after</th>
                        <th className="num">Mean before</th>
                        <th className="num">Mean after</th>
                        <th className="num">Change</th>
                        <th className="num">p-value</th>
                        <th>Alert</th>
                      </tr>
                    </thead>
                    <tbody>
                      {marks.map((m) => (
                        <tr key={`${m.series}:${m.runId}`}>
                          <td>{m.series}</td>
                          <td>
                            <Link to={`/runs/${m.previousRunId}`}>
                              {rows
                                .find((r) => r.runId === m.previousRunId)
                                ?.startedAt.slice(0, 10) ?? 'run'}
                            </Link>
                          </td>
                          <td>
                            <Link to={`/runs/${m.runId}`}>
                              {rows[m.index]?.startedAt.slice(0, 10)}
                            </Link>
                          </td>
                          <td className="num">{m.before}</td>
                          <td className="num">{m.after}</td>
                          <td className="num">{m.change}</td>
                          <td className="num">{m.pValue}</td>
                          <td>
                            <AlertTriage alert={m.alert} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </div>
          )}
          <div className="table-wrap">
            <table className="data" data-testid="history-table">
              <thead>
                <tr>
                  <th>Started</th>
                  <th>Mesh</th>
                  <th>Branch</th>
                  <th>Commit</th>
                  <th>CI</th>
                  <th className="num">{metricLabel(metric)}</th>
                  <th>Exactness</th>
                  {pooled && <th>Over</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.runId}>
                    <td>
                      <Link to={`/runs/${r.runId}`}>
                        {r.startedAt.replace('T', ' ').slice(0, 19)}
                      </Link>
                    </td>
                    <td>{r.mesh}</td>
                    <td>{r.branch}</td>
                    <td>{r.sha ? <code>{r.sha}</code> : <span className="muted">—</span>}</td>
                    <td>
                      {r.ciUrl ? (
                        <a href={r.ciUrl} target="_blank" rel="noreferrer">
                          CI run
                        </a>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td className="num">{formatMetric(metric, r.value)}</td>
                    <td className="muted">{r.exactness}</td>
                    {pooled && <td className="muted">{r.over || 'one change'}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
