// The change points of a history: where each series' mean moved, as Apache Otava finds them,
// with the runs either side and the alert each raised.
import type { History, HistoryMetric } from '@meshbench/schema';
import { Link } from 'react-router';
import {
  type ChangePointMark,
  detectionSource,
  type HistoryRow,
  metricLabel,
} from '../../../charts/prepare/history.ts';
import { AlertTriage } from './AlertTriage.tsx';

export function ChangePointsPanel({
  detection,
  marks,
  rows,
  metric,
}: {
  detection: History['detection'];
  marks: ChangePointMark[];
  rows: HistoryRow[];
  metric: HistoryMetric;
}) {
  return (
    <div className="panel" data-testid="history-change-points">
      <h2>Change points: {metricLabel(metric)}</h2>
      <p className="muted">
        E-Divisive means with a t-test over each series (one scenario, mesh and branch), as Apache
        Otava computes it: p ≤ {detection.maxPValue}, change ≥{' '}
        {(detection.minMagnitude * 100).toFixed(0)} %, at least {detection.minSegment} runs between
        two, so a single spike is none ({detectionSource(detection.source)}).
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
                      {rows.find((r) => r.runId === m.previousRunId)?.startedAt.slice(0, 10) ??
                        'run'}
                    </Link>
                  </td>
                  <td>
                    <Link to={`/runs/${m.runId}`}>{rows[m.index]?.startedAt.slice(0, 10)}</Link>
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
  );
}
