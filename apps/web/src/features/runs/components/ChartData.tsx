// Under every chart: its data as CSV from the API, and the same rows as a table on the page.
import type { ReactNode } from 'react';

export function ChartData({
  csvUrl,
  testId,
  columns,
  rows,
}: {
  csvUrl: string;
  testId: string;
  columns: string[];
  rows: ReactNode[][];
}) {
  return (
    <div className="chart-data">
      <a href={csvUrl} download data-testid={`${testId}-csv`} className="csv-link">
        Data as CSV
      </a>
      <details>
        <summary>Table ({rows.length} rows)</summary>
        <div className="chart-data-table">
          <table className="data compact">
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c} className="num">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((cells, i) => (
                // Rows are positional: bins and CDF points have no identity of their own.
                <tr key={i}>
                  {cells.map((cell, j) => (
                    <td key={j} className="num">
                      {cell}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </div>
  );
}
