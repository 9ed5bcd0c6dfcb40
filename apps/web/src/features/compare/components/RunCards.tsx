// The compared runs side by side: mesh (in its colour), its summary sentence, what ran where,
// and which is the baseline.
import type { RunHeadline } from '@meshbench/schema';
import { Link } from 'react-router';
import { formatCount, formatTimestamp } from '../../../charts/prepare/format.ts';
import { MeshName } from '../../../ui/MeshName.tsx';
import { RunSummary } from '../../../ui/RunSummary.tsx';
import { StatusBadge } from '../../../ui/StatusBadge.tsx';
import type { ComparedRun, RunFacts } from '../prepare/compared-runs.ts';

function topologyText(t: RunFacts['topology']): string {
  const parts: string[] = [];
  if (t.nodes !== undefined) parts.push(`${formatCount(t.nodes)} nodes`);
  if (t.services !== undefined) parts.push(`${formatCount(t.services)} services`);
  if (t.instances !== undefined) parts.push(`${formatCount(t.instances)} instances`);
  if (t.servers !== undefined) parts.push(`${formatCount(t.servers)} servers`);
  return parts.length > 0 ? parts.join(' · ') : '—';
}

export function RunCards({
  runs,
  linkToRuns,
  headlines,
}: {
  runs: ComparedRun[];
  /** Each run's headline by id, for its summary sentence (live: GET /runs/headlines; a report: frozen). */
  headlines?: ReadonlyMap<string, RunHeadline | null>;
  /** Live comparisons link each card to its run page; a frozen report reaches nothing else. */
  linkToRuns: boolean;
}) {
  return (
    <div className="run-cards" data-count={runs.length}>
      {runs.map(({ key, label, style, run }, i) => (
        <article
          key={key}
          className="run-card"
          data-testid="run-card"
          data-run-id={run.id}
          style={{ borderTopColor: style.color }}
        >
          <header>
            <h2>
              {linkToRuns ? (
                <Link to={`/runs/${run.id}`} className="row-link">
                  <MeshName name={run.mesh.name} version={run.mesh.version} />
                </Link>
              ) : (
                <MeshName name={run.mesh.name} version={run.mesh.version} />
              )}
              {label.includes('#') && (
                <span className="muted"> {label.slice(label.indexOf('#'))}</span>
              )}
            </h2>
            {i === 0 ? (
              <span className="baseline-tag">baseline</span>
            ) : (
              <span className="muted run-card-vs">vs baseline</span>
            )}
          </header>
          <RunSummary headline={headlines?.get(run.id)} />
          <dl>
            <dt>Scenario</dt>
            <dd>
              {run.benchmark} / {run.scenario}
            </dd>
            <dt>Platform</dt>
            <dd>{run.platform ?? '—'}</dd>
            <dt>Topology</dt>
            <dd>{topologyText(run.topology)}</dd>
            <dt>Started</dt>
            <dd>{formatTimestamp(run.startedAt)}</dd>
          </dl>
          <StatusBadge status={run.status} />
        </article>
      ))}
    </div>
  );
}
