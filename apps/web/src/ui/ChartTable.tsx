// A chart's table alternative: the numbers it draws, behind a <details> whose summary is
// reachable by Tab; the chart names it with aria-describedby (pass the same id).
import type { ReactNode } from 'react';

export function ChartTable({
  id,
  testId,
  summary,
  columns,
  rows,
}: {
  id?: string;
  testId: string;
  /** What the table holds, e.g. "Convergence as a table". */
  summary: string;
  columns: string[];
  rows: { key: string; cells: ReactNode[] }[];
}) {
  return (
    <details className="chart-data" id={id} data-testid={testId}>
      <summary>
        {summary} ({rows.length} rows)
      </summary>
      <div className="chart-data-table">
        <table className="data compact">
          <thead>
            <tr>
              {columns.map((c, i) => (
                <th key={c} className={i === 0 ? undefined : 'num'}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                {r.cells.map((cell, j) => (
                  // Cells are positional: a row is a time, its cells the lines at that time.
                  <td key={j} className={j === 0 ? undefined : 'num'}>
                    {cell}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
