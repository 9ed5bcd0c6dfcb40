// Who ran what, where and when: a run's title and facts. A view (props in, nothing fetched):
// the run page's header, and each run of a shared report drawn from its frozen snapshot.
import type { ReportRun } from '@meshbench/schema';
import type { ReactNode } from 'react';
import { formatCount, formatElapsed, formatTimestamp } from '../../../charts/prepare/format.ts';
import { MeshName } from '../../../ui/MeshName.tsx';
import { StatusBadge } from '../../../ui/StatusBadge.tsx';

/** What a run and a report's frozen run both hold. */
type FactsRun = ReportRun['run'];

function topologyText(t: FactsRun['topology']): string {
  const parts: string[] = [];
  if (t.nodes !== undefined) parts.push(`${formatCount(t.nodes)} nodes`);
  if (t.services !== undefined) parts.push(`${formatCount(t.services)} services`);
  if (t.instances !== undefined) parts.push(`${formatCount(t.instances)} instances`);
  if (t.servers !== undefined) parts.push(`${formatCount(t.servers)} servers`);
  return parts.length > 0 ? parts.join(' · ') : '—';
}

export function RunFacts({
  run,
  frozen = false,
  children,
  summary,
}: {
  run: FactsRun;
  /** The run's summary sentence (ui/RunSummary), read first: under the title, above the facts. */
  summary?: ReactNode;
  /** A report's run: a section title under the report's, and how long it ran, not the clock. */
  frozen?: boolean;
  /** What can be done with the run, after its status (the run page's Share). */
  children?: ReactNode;
}) {
  const labels = Object.entries(run.labels).sort(([a], [b]) => a.localeCompare(b));
  const elapsed = run.finishedAt
    ? formatElapsed(Date.parse(run.finishedAt) - Date.parse(run.startedAt))
    : null;
  const Title = frozen ? 'h2' : 'h1';
  return (
    <header className="run-header">
      <div className="run-title">
        <Title className={frozen ? 'report-run-title' : undefined}>
          <MeshName name={run.mesh.name} version={run.mesh.version} />
          <span className="run-title-sep">·</span>
          {run.benchmark}
          <span className="run-title-sep">/</span>
          {run.scenario}
        </Title>
        <StatusBadge status={run.status} />
        {children}
      </div>
      {summary}
      <dl className="facts">
        <div data-fact="platform">
          <dt>Platform</dt>
          <dd>{run.platform ?? '—'}</dd>
        </div>
        <div className="wide" data-fact="topology">
          <dt>Topology</dt>
          <dd>{topologyText(run.topology)}</dd>
        </div>
        {!frozen && (
          <div>
            <dt>Environment</dt>
            <dd>{run.environment ?? '—'}</dd>
          </div>
        )}
        <div data-fact="started">
          <dt>Started</dt>
          <dd>{formatTimestamp(run.startedAt)}</dd>
        </div>
        {!frozen && (
          <div>
            <dt>Finished</dt>
            <dd>{formatTimestamp(run.finishedAt)}</dd>
          </div>
        )}
        <div>
          <dt>Duration</dt>
          <dd>{elapsed ?? '—'}</dd>
        </div>
        <div className="wide">
          <dt>Labels</dt>
          <dd className="labels">
            {labels.length === 0
              ? '—'
              : labels.map(([k, v]) => (
                  <span key={k} className="label-chip">
                    {k}={v}
                  </span>
                ))}
          </dd>
        </div>
      </dl>
    </header>
  );
}
