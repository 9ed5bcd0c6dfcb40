// Alerts: a project's change points and failed gates to triage, newest first, each with its
// series (linked to its History), its runs, what changed and who did what last. The project,
// state and benchmark shown are in the URL, so the link a person sends shows the same list.
import type { Alert, AlertState } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { meshbench } from '../../../api/client.ts';
import { formatMetric, isHistoryMetric, metricLabel } from '../../../charts/prepare/history.ts';
import { useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import {
  readWriteToken,
  saveWriteToken,
  tokenProblem,
  userError,
} from '../../../ui/write-token.ts';
import { AlertTriage } from '../components/AlertTriage.tsx';
import '../history.css';

const STATES = ['open', 'acknowledged', 'dismissed', 'all'] as const;

/** The History page of an alert's series, at its metric. */
function historyLink(a: Alert): string {
  const q = new URLSearchParams({
    benchmark: a.series.benchmark,
    scenario: a.series.scenario,
    mesh: a.series.mesh,
  });
  if (a.series.branch) q.set('branch', a.series.branch);
  if (isHistoryMetric(a.series.metric)) q.set('metric', a.series.metric);
  const point = a.details.loadPoint as { connections?: number; targetRps?: number } | undefined;
  if (point?.connections !== undefined) q.set('connections', String(point.connections));
  if (point?.targetRps !== undefined) q.set('targetRps', String(point.targetRps));
  return `/history?${q}`;
}

/** What changed: a change point's means and p-value, or a gate's failed rules. */
function whatChanged(a: Alert): string {
  if (a.kind === 'gate') {
    const failed = (a.details.failed as { rule: string; reason: string }[] | undefined) ?? [];
    return failed.map((f) => `${f.rule}: ${f.reason}`).join('; ') || 'failed';
  }
  const { before, after, change, pValue } = a.details as {
    before?: number;
    after?: number;
    change?: number;
    pValue?: number;
  };
  const metric = a.series.metric;
  const format = (v: number | undefined) =>
    v === undefined ? '—' : isHistoryMetric(metric) ? formatMetric(metric, v) : String(v);
  const pct =
    change === undefined
      ? ''
      : ` (${change >= 0 ? '+' : '−'}${Math.abs(change * 100).toFixed(1)} %)`;
  const p =
    pValue === undefined
      ? ''
      : `, p = ${pValue < 1e-4 ? pValue.toExponential(1) : pValue.toFixed(4)}`;
  return `${format(before)} → ${format(after)}${pct}${p}`;
}

/** The alert's last entry: what was done, by whom (a token's name, or meshbench), when. */
function lastAction(a: Alert): string {
  const last = a.log.at(-1);
  if (!last) return '—';
  const reason = typeof last.reason === 'string' ? `: ${last.reason}` : '';
  return `${last.action}${reason} by ${last.by}, ${String(last.at).slice(0, 16).replace('T', ' ')} UTC`;
}

export function AlertsPage() {
  const [params, setParams] = useSearchParams();
  // A project's alerts are listed with its token (or the admin's): the one this browser
  // keeps, else one typed here, kept once the server has accepted it.
  const [typed, setTyped] = useState('');
  const token = typed || readWriteToken() || undefined;
  // Listed with the token this browser keeps (its private project too), else with none.
  const saved = readWriteToken() || undefined;
  const projects = useQuery({
    queryKey: ['projects', saved],
    queryFn: ({ signal }) =>
      meshbench.projects.list({ signal, token: saved }).catch((error: unknown) => {
        if (saved && tokenProblem(error) !== null) return meshbench.projects.list({ signal });
        throw error;
      }),
  });
  // Unless the URL names one: the default project (every server has it), else the first.
  const project =
    params.get('project') ||
    (projects.data?.find((p) => p.name === 'default') ?? projects.data?.[0])?.name;
  const chosen = params.get('state');
  const state = (STATES as readonly string[]).includes(chosen ?? '')
    ? (chosen as (typeof STATES)[number])
    : 'open';
  const benchmark = params.get('benchmark') ?? '';
  const alerts = useQuery({
    queryKey: ['alerts', project, state, token],
    queryFn: ({ signal }) =>
      meshbench.projects.alerts(
        project as string,
        state === 'all' ? {} : { state: state as AlertState },
        { signal, token },
      ),
    enabled: Boolean(project),
    retry: (failures, error) => tokenProblem(error) === null && failures < 2,
  });
  const accepted = Boolean(alerts.data) && typed !== '';
  useEffect(() => {
    if (accepted) saveWriteToken(typed);
  }, [accepted, typed]);
  const askToken = alerts.isError && tokenProblem(alerts.error) !== null;
  const submitToken = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTyped(String(new FormData(event.currentTarget).get('token') ?? '').trim());
  };
  useDocumentTitle(project ? `Alerts of ${project}` : 'Alerts');
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  const rows = (alerts.data ?? [])
    .filter((a) => !benchmark || a.series.benchmark.toLowerCase().includes(benchmark.toLowerCase()))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));

  return (
    <div className="alerts-page">
      <h1>Alerts</h1>
      <p className="muted">
        Change points found in a series when a run finished (or when a run was written after its
        finish), and failed gates, newest first. Acknowledge or dismiss one with your project’s
        write token; its History shows the change in context.
      </p>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Project
          <select
            data-testid="alerts-project"
            value={project ?? ''}
            onChange={(e) => set('project', e.target.value)}
          >
            {projects.data?.map((p) => (
              <option key={p.id} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          State
          <select
            data-testid="alerts-state"
            value={state}
            onChange={(e) => set('state', e.target.value === 'open' ? '' : e.target.value)}
          >
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Benchmark
          <input
            data-testid="alerts-benchmark"
            value={benchmark}
            onChange={(e) => set('benchmark', e.target.value)}
            placeholder="any"
          />
        </label>
      </form>
      {projects.isError ? (
        <ErrorMessage error={projects.error} what="the projects" />
      ) : askToken ? (
        <form className="alerts-token" onSubmit={submitToken} data-testid="alerts-token-form">
          <p role="alert">{userError(alerts.error, `list the alerts of ${project}`)}</p>
          <input
            name="token"
            type="password"
            placeholder="write token"
            aria-label="Write token"
            data-testid="alerts-token"
          />
          <button type="submit" className="button">
            Show alerts
          </button>
        </form>
      ) : alerts.isError ? (
        <ErrorMessage error={alerts.error} what="the alerts" />
      ) : !alerts.data ? (
        <Loading what="alerts" />
      ) : rows.length === 0 ? (
        <p className="muted" data-testid="alerts-empty">
          No {state === 'all' ? '' : `${state} `}alerts
          {benchmark ? ` for benchmarks matching “${benchmark}”` : ''} in {project}.
        </p>
      ) : (
        <div className="table-wrap">
          <table
            className="data"
            data-testid="alerts-table"
            aria-label={`Alerts of ${project}, ${state}`}
          >
            <thead>
              <tr>
                <th>Found</th>
                <th>Series</th>
                <th>Metric</th>
                <th>Runs</th>
                <th>What changed</th>
                <th>Last action</th>
                <th>Triage</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.id} data-testid="alert-row">
                  <td>
                    {a.kind === 'gate' ? 'gate failed' : 'change point'}
                    <div className="muted">{a.createdAt.slice(0, 10)}</div>
                    {!a.detected && <div className="muted">no longer found</div>}
                  </td>
                  <td>
                    <Link to={historyLink(a)}>{a.series.benchmark}</Link>
                    <div className="muted">
                      {[a.series.scenario, a.series.mesh, a.series.branch]
                        .filter((x) => x !== null && x !== '')
                        .join(' · ')}
                    </div>
                  </td>
                  <td>
                    {isHistoryMetric(a.series.metric)
                      ? metricLabel(a.series.metric)
                      : a.series.metric}
                  </td>
                  <td>
                    {a.previousRunId && (
                      <>
                        <Link to={`/runs/${a.previousRunId}`}>before</Link>
                        {' → '}
                      </>
                    )}
                    <Link to={`/runs/${a.runId}`}>{a.kind === 'gate' ? 'run' : 'after'}</Link>
                  </td>
                  <td>{whatChanged(a)}</td>
                  <td className="muted">{lastAction(a)}</td>
                  <td>
                    <AlertTriage alert={{ id: a.id, state: a.state }} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
