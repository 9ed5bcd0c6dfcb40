// The data-plane numbers of a comparison, step by step: each run's percentile and error rate
// and, for each run but the baseline, its difference from the baseline, better in green and
// worse in red when significant (load-deltas.ts).

import { AccuracyLegend } from '../../../ui/PercentileValue.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import type { LoadDeltaRow } from '../prepare/load-deltas.ts';
import { DeltaCells, DeltaHead } from './DeltaCells.tsx';

export function LoadDeltaTable({ runs, rows }: { runs: ComparedRun[]; rows: LoadDeltaRow[] }) {
  return (
    <div className="table-wrap delta-wrap">
      <table className="data delta-table" data-testid="load-delta-table">
        <DeltaHead
          runs={runs}
          lead={
            <>
              <th rowSpan={2}>Mode</th>
              <th rowSpan={2}>Step</th>
              <th rowSpan={2}>Metric</th>
            </>
          }
        />
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
              {row.cells.map((cell, i) => (
                <DeltaCells key={`${row.key}-${i}`} cell={cell} baseline={i === 0} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="table-note">
        Differences from the baseline run at the same step:{' '}
        <span className="delta-better">better</span> (lower latency, fewer failed requests) or{' '}
        <span className="delta-worse">worse</span>, coloured only when beyond the runs' noise: a
        percentile when the two steps' 95 % intervals do not meet (from each step's histogram, the
        ranks its sampling allows read as buckets; else the percentiles' stated bounds), an error
        rate when the two rates differ beyond their sampling. Error rates are failed requests as a
        share of the requests sent (the count in brackets).
      </p>
      <AccuracyLegend
        certainties={rows.flatMap((r) =>
          r.cells.flatMap((c) => (c.marked ? [c.marked.certainty] : [])),
        )}
      />
    </div>
  );
}
