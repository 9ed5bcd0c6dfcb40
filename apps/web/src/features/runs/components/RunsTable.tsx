// One page of runs, in the order the API sorted them, each with the number its kind is judged
// by, what it ran on, and the branch and commit it measured; column headers sort, checkboxes
// pick runs to compare, and each row opens its run page.
import type { Run, RunHeadline, RunSort } from '@meshbench/schema';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { formatCount, formatTimestamp, NO_VALUE } from '../../../charts/prepare/format.ts';
import { MeshName } from '../../../ui/MeshName.tsx';
import { runSummary } from '../../../ui/run-summary.ts';
import { StatusBadge } from '../../../ui/StatusBadge.tsx';
import { type SortColumn, sortDirection } from '../hooks/run-list-url.ts';
import { commitOf, HEADLINE_KIND, topologyText } from '../hooks/run-row.ts';

export const MAX_COMPARED = 4;

function SortButton({
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
    <button
      type="button"
      className={direction === 'none' ? 'sort-header' : 'sort-header sorted'}
      data-testid={`sort-${column}`}
      onClick={() => onSort(column)}
    >
      {label}
      <span className="sort-arrow" aria-hidden="true">
        {direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '↕'}
      </span>
    </button>
  );
}

/** A sortable column's header; `children`: a second key the same column shows beneath. */
function SortHeader({
  column,
  label,
  sort,
  onSort,
  children,
}: {
  column: SortColumn;
  label: string;
  sort: RunSort;
  onSort: (column: SortColumn) => void;
  children?: ReactNode;
}) {
  const direction = sortDirection(sort, column);
  return (
    <th aria-sort={direction}>
      <SortButton column={column} label={label} sort={sort} onSort={onSort} />
      {children && <span className="sort-second">{children}</span>}
    </th>
  );
}

function HeadlineCell({ headline }: { headline: RunHeadline | null | undefined }) {
  if (headline === undefined)
    return (
      <td className="headline muted" aria-busy="true">
        …
      </td>
    );
  if (headline === null) return <td className="headline muted">{NO_VALUE}</td>;
  return (
    <td className="headline" data-testid="run-headline" data-kind={headline.kind}>
      <span className="headline-kind">{HEADLINE_KIND[headline.kind]}</span>
      <span className="headline-number">{runSummary(headline)}</span>
    </td>
  );
}

export function RunsTable({
  runs,
  headlines,
  sort,
  onSort,
  picked,
  onPick,
}: {
  runs: Run[];
  /** Each run's headline by id; undefined while they load (a run without one is absent). */
  headlines: ReadonlyMap<string, RunHeadline> | undefined;
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
            <SortHeader column="benchmark" label="Benchmark" sort={sort} onSort={onSort}>
              <SortButton column="scenario" label="scenario" sort={sort} onSort={onSort} />
            </SortHeader>
            <th>Headline</th>
            <th>Platform · topology</th>
            <th>Branch · commit</th>
            <SortHeader column="startedAt" label="Started" sort={sort} onSort={onSort} />
            <SortHeader column="status" label="Status" sort={sort} onSort={onSort} />
            <th className="num">Changes</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const order = picked.indexOf(run.id);
            const checked = order >= 0;
            const headline = headlines ? (headlines.get(run.id) ?? null) : undefined;
            const commit = commitOf(run);
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
                <td className="stacked">
                  <span>{run.benchmark}</span>
                  <span className="muted">{run.scenario}</span>
                </td>
                <HeadlineCell headline={headline} />
                <td className="stacked nowrap">
                  <span>{run.platform ?? NO_VALUE}</span>
                  <span className="muted">{topologyText(run)}</span>
                </td>
                <td className="stacked">
                  <span>{run.labels.branch ?? NO_VALUE}</span>
                  {commit && (
                    <code className="commit muted" title={commit.full}>
                      {commit.short}
                    </code>
                  )}
                </td>
                <td className="stacked nowrap">
                  {/* "2026-02-03" over "22:00:00 UTC": the list stays within the page. */}
                  <span>{formatTimestamp(run.startedAt).slice(0, 10)}</span>
                  <span className="muted">{formatTimestamp(run.startedAt).slice(11)}</span>
                </td>
                <td>
                  <StatusBadge status={run.status} />
                </td>
                {/* Changes are what a propagation run measures; elsewhere a 0 says nothing. */}
                <td className="num">{run.changes > 0 ? formatCount(run.changes) : ''}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
