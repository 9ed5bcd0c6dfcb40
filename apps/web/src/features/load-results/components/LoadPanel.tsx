// The frame of one load-result chart: title and what it shows, the chart (or why there is
// none), a note, and the table of the numbers drawn.
import type { ReactNode } from 'react';

export interface TableColumn {
  label: string;
  num?: boolean;
}

export function LoadPanel({
  testId,
  title,
  sub,
  controls,
  chart,
  empty,
  note,
  columns,
  rows,
  legend,
}: {
  testId: string;
  title: string;
  sub: ReactNode;
  controls?: ReactNode;
  /** The chart, or null to show `empty` instead. */
  chart: ReactNode | null;
  empty: string;
  note?: ReactNode;
  columns: TableColumn[];
  /** Each row: its cells and an optional marker for tests and highlighting. */
  rows: { key: string; cells: ReactNode[]; marked?: boolean; attrs?: Record<string, string> }[];
  /** Under the table: e.g. what its "~" marks mean (ui/PercentileValue's AccuracyLegend). */
  legend?: ReactNode;
}) {
  // No chart: one slim line with the reason, after the charts (load-results.css), so a run's
  // first screen is its data and not a row of empty boxes.
  if (chart === null) {
    return (
      <div className="panel load-panel load-panel-empty" data-testid={testId} data-empty="true">
        <h3>{title}</h3>
        <p className="state" data-testid={`${testId}-chart`}>
          {empty}
        </p>
        {note && <p className="chart-note">{note}</p>}
        {rows.length > 0 && (
          <PanelTable testId={testId} columns={columns} rows={rows} legend={legend} />
        )}
      </div>
    );
  }
  return (
    <div className="panel load-panel" data-testid={testId}>
      <div className="panel-head">
        <div>
          <h3>{title}</h3>
          <p className="panel-sub">{sub}</p>
        </div>
        {controls}
      </div>
      <div className="chart-box load-chart-box" data-testid={`${testId}-chart`}>
        {chart}
      </div>
      <p className="chart-note">{note ?? '\u00a0'}</p>
      <PanelTable testId={testId} columns={columns} rows={rows} legend={legend} />
    </div>
  );
}

type PanelRows = Parameters<typeof LoadPanel>[0]['rows'];

function PanelTable({
  testId,
  columns,
  rows,
  legend,
}: {
  testId: string;
  columns: TableColumn[];
  rows: PanelRows;
  legend?: ReactNode;
}) {
  return (
    <div className="chart-data">
      <details>
        <summary>Table ({rows.length} rows)</summary>
        <div className="chart-data-table">
          <table className="data compact" data-testid={`${testId}-table`}>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.label} className={c.num ? 'num' : undefined}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key} className={r.marked ? 'row-marked' : undefined} {...r.attrs}>
                  {r.cells.map((cell, j) => (
                    <td
                      key={columns[j]?.label ?? j}
                      className={columns[j]?.num ? 'num' : undefined}
                    >
                      {cell}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {legend}
      </details>
    </div>
  );
}
