// The percentile table of a comparison: each run's value and, for each run but the
// baseline, its difference from the baseline, better in green and worse in red.
import type { Propagation } from '@meshbench/schema';
import { useMemo } from 'react';
import { certaintyOf, FROM_ESTIMATE } from '../../../charts/prepare/percentile-accuracy.ts';
import { AccuracyLegend, MarkedValue } from '../../../ui/PercentileValue.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import { deltaRows } from '../prepare/deltas.ts';

// Durations carry their unit in each cell (s or min where ms would not read).
const UNIT: Record<string, string> = { ms: '', share: '', count: 'proxies' };

export function DeltaTable({
  runs,
  summaries,
}: {
  runs: ComparedRun[];
  summaries: (Propagation | null)[];
}) {
  const rows = useMemo(() => deltaRows(summaries), [summaries]);
  const certainties = useMemo(
    () => summaries.flatMap((s) => s?.percentiles.map(certaintyOf) ?? []),
    [summaries],
  );
  return (
    <div className="table-wrap delta-wrap">
      <table className="data delta-table" data-testid="delta-table">
        <thead>
          <tr>
            <th rowSpan={2}>Metric</th>
            {runs.map((r, i) => (
              <th
                key={r.key}
                colSpan={i === 0 ? 1 : 3}
                className="run-head"
                style={{ borderTopColor: r.style.color }}
              >
                <span className="mesh-swatch" style={{ background: r.style.color }} />
                {r.label}
                {i === 0 && <span className="baseline-tag"> baseline</span>}
              </th>
            ))}
          </tr>
          <tr>
            {runs.map((r, i) =>
              i === 0 ? (
                <th key={r.key} className="num">
                  value
                </th>
              ) : (
                [
                  <th key={`${r.key}-v`} className="num group-start">
                    value
                  </th>,
                  <th key={`${r.key}-a`} className="num">
                    Δ
                  </th>,
                  <th key={`${r.key}-r`} className="num">
                    Δ %
                  </th>,
                ]
              ),
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ metric, cells }) => (
            <tr key={metric.key} data-metric={metric.key}>
              <th scope="row" title={`${metric.better} is better`}>
                {metric.label}
                {UNIT[metric.unit] && <span className="unit"> {UNIT[metric.unit]}</span>}
              </th>
              {cells.map((cell, i) => {
                const id = `${i}-${metric.key}`;
                const tone = cell.verdict ? `delta-${cell.verdict}` : '';
                return i === 0 ? (
                  <td key={id} className="num" data-testid={`cmp-value-${id}`}>
                    {cell.marked ? <MarkedValue marked={cell.marked} /> : cell.value}
                  </td>
                ) : (
                  [
                    <td key={`${id}-v`} className="num group-start" data-testid={`cmp-value-${id}`}>
                      {cell.marked ? <MarkedValue marked={cell.marked} /> : cell.value}
                    </td>,
                    <td
                      key={`${id}-a`}
                      className={`num ${tone}`}
                      data-testid={`cmp-abs-${id}`}
                      data-verdict={cell.verdict ?? undefined}
                      title={cell.fromEstimate ? FROM_ESTIMATE : undefined}
                    >
                      {cell.abs}
                    </td>,
                    <td
                      key={`${id}-r`}
                      className={`num ${tone}`}
                      data-testid={`cmp-rel-${id}`}
                      data-verdict={cell.verdict ?? undefined}
                      title={cell.fromEstimate ? FROM_ESTIMATE : undefined}
                    >
                      {cell.rel}
                    </td>,
                  ]
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="table-note">
        Differences from the baseline: <span className="delta-better">better</span> (lower latency,
        a higher share within the threshold, fewer proxies that never applied it) or{' '}
        <span className="delta-worse">worse</span>. Percentiles are nearest-rank.
      </p>
      <AccuracyLegend certainties={certainties} />
    </div>
  );
}
