// One page of runs, in the order the API sorted them; column headers sort, checkboxes pick
// runs to compare, and each row opens its run page.
import type { Run, RunSort } from '@meshbench/schema';
import { Link, useNavigate } from 'react-router';
import { formatCount, formatTimestamp } from '../../../charts/prepare/format.ts';
import { MeshName } from '../../../ui/MeshName.tsx';
import { StatusBadge } from '../../../ui/StatusBadge.tsx';
import { type SortColumn, sortDirection } from '../hooks/run-list-url.ts';

export const MAX_COMPARED = 4;

function SortHeader({
  column,
  label,
  sort,
  onSort,
}: {
  column: SortColumn;
  label: string;
  sort: RunSort;
  onSort: (column: SortColumn) => void;
}) {
  const direction = sortDirection(sort, column);
  return (
    <th aria-sort={direction}>
      <button
        type="button"
        className="sort-header"
        data-testid={`sort-${column}`}
        onClick={() => onSort(column)}
      >
        {label}
        <span className="sort-arrow" aria-hidden="true">
          {direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}

export function RunsTable({
  runs,
  sort,
  onSort,
  picked,
  onPick,
}: {
  runs: Run[];
  sort: RunSort;
  onSort: (column: SortColumn) => void;
  /** Ids of the runs picked to compare, in the order they were picked. */
  picked: string[];
  onPick: (run: Run, pick: boolean) => void;
}) {
  const navigate = useNavigate();
  const full = picked.length >= MAX_COMPARED;
  return (
    <div className="table-wrap">
      <table className="data runs-table">
        <thead>
          <tr>
            <th className="pick-col">
              <span className="visually-hidden">Compare</span>
            </th>
            <SortHeader column="mesh" label="Mesh" sort={sort} onSort={onSort} />
            <SortHeader column="benchmark" label="Benchmark" sort={sort} onSort={onSort} />
            <SortHeader column="scenario" label="Scenario" sort={sort} onSort={onSort} />
            <th>Platform</th>
            <SortHeader column="startedAt" label="Started" sort={sort} onSort={onSort} />
            <SortHeader column="status" label="Status" sort={sort} onSort={onSort} />
            <th className="num">Changes</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const order = picked.indexOf(run.id);
            const checked = order >= 0;
            return (
              <tr
                key={run.id}
                data-testid="run-row"
                data-run-id={run.id}
                className={checked ? 'clickable picked' : 'clickable'}
                onClick={(event) => {
                  // Links, checkboxes and their cells handle their own clicks; the rest of the
                  // row follows the link.
                  if (!(event.target as HTMLElement).closest('a, input, label, .pick-col'))
                    navigate(`/runs/${run.id}`);
                }}
              >
                <td className="pick-col">
                  <label className="pick">
                    <input
                      type="checkbox"
                      data-testid="run-pick"
                      checked={checked}
                      disabled={!checked && full}
                      onChange={(e) => onPick(run, e.currentTarget.checked)}
                      aria-label={`Pick ${run.mesh.name} ${run.mesh.version ?? ''} run of ${formatTimestamp(run.startedAt)} to compare`}
                    />
                    {checked && (
                      <span className="pick-order" aria-hidden="true">
                        {order + 1}
                      </span>
                    )}
                  </label>
                </td>
                <td>
                  <Link to={`/runs/${run.id}`} className="row-link">
                    <MeshName name={run.mesh.name} version={run.mesh.version} />
                  </Link>
                </td>
                <td>{run.benchmark}</td>
                <td>{run.scenario}</td>
                <td>{run.platform ?? '—'}</td>
                <td className="nowrap">{formatTimestamp(run.startedAt)}</td>
                <td>
                  <StatusBadge status={run.status} />
                </td>
                <td className="num">{formatCount(run.changes)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
