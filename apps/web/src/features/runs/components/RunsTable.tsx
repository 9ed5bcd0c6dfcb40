// The runs, newest first; each row opens its run page.
import type { Run } from '@meshbench/schema';
import { Link, useNavigate } from 'react-router';
import { formatCount, formatTimestamp } from '../../../charts/prepare/format.ts';
import { MeshName } from '../../../ui/MeshName.tsx';
import { StatusBadge } from '../../../ui/StatusBadge.tsx';

export function RunsTable({ runs }: { runs: Run[] }) {
  const navigate = useNavigate();
  const sorted = [...runs].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  return (
    <div className="table-wrap">
      <table className="data runs-table">
        <thead>
          <tr>
            <th>Mesh</th>
            <th>Benchmark</th>
            <th>Scenario</th>
            <th>Platform</th>
            <th>Started</th>
            <th>Status</th>
            <th className="num">Changes</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((run) => (
            <tr
              key={run.id}
              data-testid="run-row"
              data-run-id={run.id}
              className="clickable"
              onClick={(event) => {
                // The link handles its own clicks (and middle clicks); the rest of the row follows it.
                if (!(event.target as HTMLElement).closest('a')) navigate(`/runs/${run.id}`);
              }}
            >
              <td>
                <Link to={`/runs/${run.id}`} className="row-link">
                  <MeshName name={run.mesh.name} version={run.mesh.version} />
                </Link>
              </td>
              <td>{run.benchmark}</td>
              <td>{run.scenario}</td>
              <td>{run.platform ?? '—'}</td>
              <td className="nowrap">{formatTimestamp(run.startedAt)}</td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td className="num">{formatCount(run.changes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
