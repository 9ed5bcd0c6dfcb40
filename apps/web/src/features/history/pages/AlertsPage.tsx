// Alerts: a project's change points and failed gates to triage, newest first, each with its
// series (linked to its History), its runs, what changed and who did what last. The project,
// state and benchmark shown are in the URL, so the link a person sends shows the same list.
import type { AlertState } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { meshbench } from '../../../api/client.ts';
import { useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import {
  readWriteToken,
  saveWriteToken,
  tokenProblem,
  userError,
} from '../../../ui/write-token.ts';
import { AlertsFilters, STATES } from '../components/AlertsFilters.tsx';
import { AlertsTable } from '../components/AlertsTable.tsx';
import '../history.css';

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
      <AlertsFilters
        projects={projects.data ?? []}
        project={project}
        state={state}
        benchmark={benchmark}
        set={set}
      />
      {projects.isError ? (
        <ErrorMessage error={projects.error} what="the projects" />
      ) : askToken ? (
        <TokenForm
          problem={userError(alerts.error, `list the alerts of ${project}`)}
          onToken={setTyped}
        />
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
        <AlertsTable rows={rows} label={`Alerts of ${project}, ${state}`} />
      )}
    </div>
  );
}

/** Asks for a write token when the server refused the one this browser keeps (or none). */
function TokenForm({ problem, onToken }: { problem: string; onToken: (token: string) => void }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onToken(String(new FormData(event.currentTarget).get('token') ?? '').trim());
  };
  return (
    <form className="alerts-token" onSubmit={submit} data-testid="alerts-token-form">
      <p role="alert">{problem}</p>
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
  );
}
