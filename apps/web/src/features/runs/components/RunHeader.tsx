// Who ran what, where and when: the facts at the top of a run page.
import type { Run } from '@meshbench/schema';
import { formatCount, formatElapsed, formatTimestamp } from '../../../charts/prepare/format.ts';
import { MeshName } from '../../../ui/MeshName.tsx';
import { ShareButton } from '../../../ui/ShareButton.tsx';
import { StatusBadge } from '../../../ui/StatusBadge.tsx';

function topologyText(t: Run['topology']): string {
  const parts: string[] = [];
  if (t.nodes !== undefined) parts.push(`${formatCount(t.nodes)} nodes`);
  if (t.services !== undefined) parts.push(`${formatCount(t.services)} services`);
  if (t.instances !== undefined) parts.push(`${formatCount(t.instances)} instances`);
  if (t.servers !== undefined) parts.push(`${formatCount(t.servers)} servers`);
  return parts.length > 0 ? parts.join(' · ') : '—';
}

export function RunHeader({ run }: { run: Run }) {
  const labels = Object.entries(run.labels).sort(([a], [b]) => a.localeCompare(b));
  const elapsed = run.finishedAt
    ? formatElapsed(Date.parse(run.finishedAt) - Date.parse(run.startedAt))
    : null;
  return (
    <header className="run-header">
      <div className="run-title">
        <h1>
          <MeshName name={run.mesh.name} version={run.mesh.version} />
          <span className="run-title-sep">·</span>
          {run.benchmark}
          <span className="run-title-sep">/</span>
          {run.scenario}
        </h1>
        <StatusBadge status={run.status} />
        <ShareButton runIds={[run.id]} />
      </div>
      <dl className="facts">
        <div>
          <dt>Platform</dt>
          <dd>{run.platform ?? '—'}</dd>
        </div>
        <div className="wide">
          <dt>Topology</dt>
          <dd>{topologyText(run.topology)}</dd>
        </div>
        <div>
          <dt>Environment</dt>
          <dd>{run.environment ?? '—'}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTimestamp(run.startedAt)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{formatTimestamp(run.finishedAt)}</dd>
        </div>
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
