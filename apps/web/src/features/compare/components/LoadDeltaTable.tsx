// The data-plane numbers of a comparison, step by step: each run's percentile and error rate
// and, for each run but the baseline, its difference from the baseline, better in green and
// worse in red.

import { FROM_ESTIMATE } from '../../../charts/prepare/percentile-accuracy.ts';
import { AccuracyLegend, MarkedValue } from '../../../ui/PercentileValue.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import type { LoadDeltaRow } from '../prepare/load-deltas.ts';

export function LoadDeltaTable({ runs, rows }: { runs: ComparedRun[]; rows: LoadDeltaRow[] }) {
  return (
    <div className="table-wrap delta-wrap">
      <table className="data delta-table" data-testid="load-delta-table">
        <thead>
          <tr>
            <th rowSpan={2}>Mode</th>
            <th rowSpan={2}>Step</th>
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
          {rows.map((row) => (
            <tr
              key={row.key}
              data-testid="load-delta-row"
              data-mode={row.mode}
              data-metric={row.metric}
            >
              <td>{row.mode}</td>
              <td>{row.step}</td>
              <th scope="row">{row.metric}</th>
              {row.cells.map((cell, i) => {
                const id = `${row.key}-${i}`;
                const tone = cell.verdict ? `delta-${cell.verdict}` : '';
                const value = cell.marked ? <MarkedValue marked={cell.marked} /> : cell.value;
                return i === 0 ? (
                  <td key={id} className="num">
                    {value}
                  </td>
                ) : (
                  [
                    <td key={`${id}-v`} className="num group-start">
                      {value}
                    </td>,
                    <td
                      key={`${id}-a`}
                      className={`num ${tone}`}
                      data-verdict={cell.verdict ?? undefined}
                      title={cell.fromEstimate ? FROM_ESTIMATE : undefined}
                    >
                      {cell.abs}
                    </td>,
                    <td
                      key={`${id}-r`}
                      className={`num ${tone}`}
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
        Differences from the baseline run at the same step:{' '}
        <span className="delta-better">better</span> (lower latency, fewer failed requests) or{' '}
        <span className="delta-worse">worse</span>. Error rates are failed requests as a share of
        the requests sent (the count in brackets).
      </p>
      <AccuracyLegend
        certainties={rows.flatMap((r) =>
          r.cells.flatMap((c) => (c.marked ? [c.marked.certainty] : [])),
        )}
      />
    </div>
  );
}
