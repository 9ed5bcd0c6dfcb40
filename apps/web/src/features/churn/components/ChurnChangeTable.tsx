// The per-change rows of a churn run, ordered by change time unless a column is clicked;
// a row opens that change's propagation below. The order is in the URL (`?churnSort=-p99`).
import type { RunPropagation } from '@meshbench/schema';
import {
  formatCount,
  formatDuration,
  formatDurationMs,
  formatPercent,
  formatTimestamp,
} from '../../../charts/prepare/format.ts';
import { useUrlParam, withParam } from '../../../ui/url-state.ts';
import {
  type ChurnSort,
  type ChurnSortKey,
  churnSortText,
  nextSort,
  parseChurnSort,
  sortChurnRows,
} from '../prepare/churn-table.ts';

const readSort = (s: URLSearchParams) => parseChurnSort(s.get('churnSort'));
const writeSort = (s: URLSearchParams, sort: ChurnSort) =>
  withParam(s, 'churnSort', churnSortText(sort));

export function ChurnChangeTable({
  data,
  selected,
  onSelect,
}: {
  data: RunPropagation;
  selected?: string | undefined;
  onSelect: (changeId: string) => void;
}) {
  const [sort, setSort] = useUrlParam(readSort, writeSort);
  const ps = data.changes.find((c) => c.percentiles.length > 0)?.percentiles.map((p) => p.p) ?? [];
  const rows = sortChurnRows(data.changes, sort);
  const header = (key: ChurnSortKey, label: string, num = true) => (
    <th
      key={key}
      className={num ? 'num' : undefined}
      aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}
    >
      <button
        type="button"
        className="sort-button"
        onClick={() => setSort(nextSort(sort, key))}
        data-testid={`churn-sort-${key}`}
      >
        {label}
        {sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : ''}
      </button>
      {/* Paper prints no buttons: the column's name as text. */}
      <span className="print-only">{label}</span>
    </th>
  );
  return (
    <div className="table-wrap">
      <table className="data compact churn-table" data-testid="churn-table">
        <thead>
          <tr>
            {header('at', 'Change', false)}
            <th>Target</th>
            {header('count', 'Applied')}
            <th className="num">Missing</th>
            {ps.map((p) => header(`p${p}`, `P${p}`))}
            {header('max', 'Max')}
            {header('within', `Within ${formatDuration(data.withinMs)}`)}
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            // The row's button is the keyboard's way in; a click anywhere on the row bubbles here.
            <tr
              key={c.id}
              className={`clickable${c.id === selected ? ' selected' : ''}`}
              data-testid="churn-row"
              data-change-id={c.id}
              onClick={() => onSelect(c.id)}
            >
              <td>
                <button type="button" className="row-link" data-testid="churn-open">
                  {c.id}
                </button>
                <span className="print-only churn-print-id">{c.id}</span>
                <div className="muted">{formatTimestamp(c.at)}</div>
              </td>
              <td>
                {c.kind} {c.target} {c.action}
              </td>
              <td className="num churn-applied">
                {formatCount(c.count)}
                {c.expected !== null && <span className="muted"> / {formatCount(c.expected)}</span>}
              </td>
              <td className="num">{formatCount(c.missing)}</td>
              {ps.map((p) => (
                <td key={p} className="num">
                  {formatDurationMs(c.percentiles.find((x) => x.p === p)?.ms)}
                </td>
              ))}
              <td className="num">{formatDurationMs(c.maxMs)}</td>
              <td className="num">{formatPercent(c.withinFraction)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
