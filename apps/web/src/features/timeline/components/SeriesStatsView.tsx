// The distributions among a run's metric series (timers, histograms, summaries): count,
// min, percentiles and max over the run, each percentile marked when it is an estimate. A view:
// SeriesStatsTable fetches the series and prepares the table.
import { NO_VALUE } from '../../../charts/prepare/format.ts';
import {
  type SeriesStatsTable as PreparedSeriesStats,
  percentileLabel,
} from '../../../charts/prepare/series-stats.ts';
import { AccuracyLegend, MarkedValue } from '../../../ui/PercentileValue.tsx';

/** The mark of a count that may include values from before the run. */
const BEFORE_RUN_MARK = '†';

export function SeriesStatsView({
  table,
  jsonUrl,
}: {
  table: PreparedSeriesStats;
  jsonUrl: string;
}) {
  return (
    <div className="series-stats" data-testid="series-stats">
      <div className="series-stats-head">
        <strong>Distributions over the run</strong>{' '}
        <a href={jsonUrl} className="muted">
          as JSON
        </a>
      </div>
      <div className="table-wrap">
        <table className="data compact" data-testid="series-stats-table">
          <thead>
            <tr>
              <th>Series</th>
              <th>Kind</th>
              <th className="num">Count</th>
              <th className="num">Min</th>
              {table.percentiles.map((p) => (
                <th key={p} className="num">
                  {percentileLabel(p)}
                </th>
              ))}
              <th className="num">Max</th>
            </tr>
          </thead>
          <tbody>
            {table.rows.map((r) => (
              <tr key={r.id} data-testid="series-stats-row" data-series={r.name}>
                <td>
                  <span className="mono">{r.name}</span>
                  {r.tags && <span className="muted"> {r.tags}</span>}
                </td>
                <td>
                  {r.kind} <span className="muted">({r.source})</span>
                </td>
                <td className="num" data-testid="series-count">
                  {r.count}
                  {r.beforeRun && (
                    <abbr className="before-run-mark" title={r.beforeRun} aria-label={r.beforeRun}>
                      {BEFORE_RUN_MARK}
                    </abbr>
                  )}
                </td>
                <td className="num" data-testid="series-min" title={r.minBound ?? undefined}>
                  {r.min}
                </td>
                {r.percentiles.map((m, i) => (
                  <td
                    key={table.percentiles[i]}
                    className="num"
                    data-testid={`series-p${String(table.percentiles[i]).replace('.', '-')}`}
                  >
                    {m ? <MarkedValue marked={m} /> : NO_VALUE}
                  </td>
                ))}
                <td className="num" data-testid="series-max" title={r.maxBound ?? undefined}>
                  {r.max}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <AccuracyLegend certainties={table.certainties} />
      {(table.bounded || table.beforeRun) && (
        <ul className="series-stats-notes muted" data-testid="series-stats-notes">
          {table.bounded && (
            <li>
              ≥ / ≤: a cumulative stream that began before the run carries its min and max since its
              start; the run&apos;s own are not known, and these only bound them.
            </li>
          )}
          {table.beforeRun && (
            <li>
              {BEFORE_RUN_MARK} the count and percentiles may include values recorded before the run
              started (a stream counted from its start or its last point before the run, at most one
              export interval); hover for how long.
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
