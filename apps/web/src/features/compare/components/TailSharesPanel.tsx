// Why the slowest proxies were slow, run by run: the share of each tail each cause explains,
// as stacked bars, and the counts behind them.
import type { ReportTail } from '@meshbench/schema';
import { useMemo } from 'react';
import { formatCount, formatDuration, formatPercent } from '../../../charts/prepare/format.ts';
import { prepareTailShares } from '../../../charts/prepare/tail-shares.ts';
import { TailSharesChart } from '../../../charts/TailSharesChart.tsx';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';

export function TailSharesPanel({
  runs,
  tails,
  error = null,
  csvUrls = [],
}: {
  runs: ComparedRun[];
  /** Live pages link each run's causes table as CSV; a frozen report has no live data to link. */
  csvUrls?: (string | null)[];
  /** One per run: undefined while it loads, null for a run without this change. */
  /** A report's tails may predate the cut and the causes' descriptions. */
  tails: (ReportTail | null | undefined)[];
  error?: unknown;
}) {
  const loading = tails.some((t) => t === undefined);
  const shares = useMemo(
    () => prepareTailShares(runs.map((r, i) => ({ key: r.key, tail: tails[i] ?? null }))),
    [runs, tails],
  );
  const csv = runs.flatMap((r, i) => {
    const url = csvUrls[i];
    return url ? [{ label: r.label, url }] : [];
  });
  const labels = Object.fromEntries(runs.map((r) => [r.key, r.label]));
  const thresholds = [
    ...new Set(tails.flatMap((t) => (t?.thresholdMs != null ? [t.thresholdMs] : []))),
  ];
  return (
    <div className="panel" data-testid="tail-shares-panel">
      <div className="panel-head">
        <div>
          <h3>Tail causes</h3>
          <p className="panel-sub">
            Proxies slower than{' '}
            {thresholds.length === 1 ? formatDuration(thresholds[0] as number) : 'the threshold'} or
            never updated, by cause: share of each run&apos;s tail
          </p>
        </div>
      </div>
      {error ? (
        <ErrorMessage error={error} what="the tail causes" />
      ) : loading ? (
        <Loading what="tail causes" />
      ) : shares.causes.length === 0 ? (
        <p className="state">No proxy was slower than the threshold.</p>
      ) : (
        <>
          <div className="tail-legend">
            {shares.causes.map((c) => (
              <span key={c.cause}>
                <span className="cause-swatch" style={{ background: c.color }} />
                {c.cause}
              </span>
            ))}
          </div>
          <TailSharesChart shares={shares} labels={labels} />
          <div className="chart-data tail-data">
            {csv.length > 0 && (
              <span className="csv-links">
                CSV:{' '}
                {csv.map((c, i) => (
                  <span key={c.label}>
                    {i > 0 && ' · '}
                    <a href={c.url} download data-testid="tail-csv" className="csv-link">
                      {c.label}
                    </a>
                  </span>
                ))}
              </span>
            )}
            {/* One run: the table is the detail the bar lacks, so it starts open. */}
            <details open={runs.length === 1}>
              <summary>Table ({shares.causes.length} causes)</summary>
              <div className="chart-data-table">
                <table className="data compact" data-testid="tail-shares-table">
                  <thead>
                    <tr>
                      <th>Cause</th>
                      {runs.map((r) => (
                        <th key={r.key} className="num">
                          {r.label}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {shares.causes.map((c) => (
                      <tr key={c.cause}>
                        <td>
                          <span className="cause-swatch" style={{ background: c.color }} />
                          {c.cause}
                        </td>
                        {shares.rows.map((row, i) => (
                          <td key={runs[i]?.key ?? i} className="num">
                            {row
                              ? `${formatCount(row.count[c.cause])} (${formatPercent((row.percent[c.cause] ?? 0) / 100)})`
                              : '—'}
                          </td>
                        ))}
                      </tr>
                    ))}
                    <tr className="total-row">
                      <td>In the tail</td>
                      {shares.rows.map((row, i) => (
                        <td key={runs[i]?.key ?? i} className="num">
                          {row ? formatCount(row.total) : '—'}
                        </td>
                      ))}
                    </tr>
                  </tbody>
                </table>
              </div>
            </details>
          </div>
        </>
      )}
    </div>
  );
}
