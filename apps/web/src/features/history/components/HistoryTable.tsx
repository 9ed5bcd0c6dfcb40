// A history's runs as a table: when, which mesh, branch and commit, the metric and how exact.
import type { HistoryMetric } from '@meshbench/schema';
import { Link } from 'react-router';
import { formatMetric, type HistoryRow, metricLabel } from '../../../charts/prepare/history.ts';

export function HistoryTable({
  rows,
  metric,
  pooled,
}: {
  rows: HistoryRow[];
  metric: HistoryMetric;
  pooled: boolean;
}) {
  return (
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
                <Link to={`/runs/${r.runId}`}>{r.startedAt.replace('T', ' ').slice(0, 19)}</Link>
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
  );
}
