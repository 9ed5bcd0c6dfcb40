// A project's alerts as a table: when and what was found, its series (linked to its History),
// the runs either side, what changed, the last action and the triage buttons.
import type { Alert } from '@meshbench/schema';
import { Link } from 'react-router';
import { formatMetric, isHistoryMetric, metricLabel } from '../../../charts/prepare/history.ts';
import { AlertTriage } from './AlertTriage.tsx';

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

export function AlertsTable({ rows, label }: { rows: Alert[]; label: string }) {
  return (
    <div className="table-wrap">
      <table className="data" data-testid="alerts-table" aria-label={label}>
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
                {isHistoryMetric(a.series.metric) ? metricLabel(a.series.metric) : a.series.metric}
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
  );
}
