// The two numbers a churn test is summed up by, side by side and never under one name: the
// pooled distribution (every application of every change) and the distribution of the
// per-change P99s (one value per change). A "P99 of P99s" is not the P99 of anything.
import type { RunPropagation } from '@meshbench/schema';
import {
  formatCount,
  formatDuration,
  formatDurationMs,
  formatPercent,
} from '../../../charts/prepare/format.ts';

export function ChurnDistributions({ data }: { data: RunPropagation }) {
  const { pooled, perChangeP99: per } = data;
  return (
    <div className="churn-distributions">
      <section className="churn-card" data-testid="churn-pooled" aria-labelledby="churn-pooled-h">
        <h3 id="churn-pooled-h">Pooled</h3>
        <p className="muted">{pooled.label}</p>
        <table className="data compact">
          <tbody>
            <tr>
              <th>First applications</th>
              <td className="num">
                {formatCount(pooled.count)} ({formatCount(pooled.changes)} changes)
              </td>
            </tr>
            {pooled.percentiles.map((p) => (
              <tr key={p.p}>
                <th>P{p.p} of all applications</th>
                <td className="num" data-testid={`churn-pooled-p${String(p.p).replace('.', '-')}`}>
                  {formatDurationMs(p.ms)}
                </td>
              </tr>
            ))}
            <tr>
              <th>Max</th>
              <td className="num">{formatDurationMs(pooled.maxMs)}</td>
            </tr>
            <tr>
              <th>Within {formatDuration(data.withinMs)}</th>
              <td className="num">{formatPercent(pooled.withinFraction)}</td>
            </tr>
          </tbody>
        </table>
        <p className="churn-note">Exact: nearest rank over every (change, proxy) application.</p>
      </section>
      <section className="churn-card" data-testid="churn-per-change" aria-labelledby="churn-per-h">
        <h3 id="churn-per-h">Per-change P{per.p}s</h3>
        <p className="muted">{per.label}</p>
        <table className="data compact">
          <tbody>
            <tr>
              <th>Changes</th>
              <td className="num">{formatCount(per.count)}</td>
            </tr>
            <tr>
              <th>Min of per-change P{per.p}</th>
              <td className="num">{formatDurationMs(per.minMs)}</td>
            </tr>
            <tr>
              <th>Median of per-change P{per.p}</th>
              <td className="num" data-testid="churn-per-change-median">
                {formatDurationMs(per.medianMs)}
              </td>
            </tr>
            <tr>
              <th>P90 of per-change P{per.p}</th>
              <td className="num">{formatDurationMs(per.p90Ms)}</td>
            </tr>
            <tr>
              <th>Max of per-change P{per.p}</th>
              <td className="num" data-testid="churn-per-change-max">
                {formatDurationMs(per.maxMs)}
              </td>
            </tr>
          </tbody>
        </table>
        <p className="churn-note">
          Each change weighs one vote whatever its proxies: not a percentile of the applications
          (read Pooled for that).
        </p>
      </section>
    </div>
  );
}
