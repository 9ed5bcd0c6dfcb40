// The percentile table of a comparison: each run's value and, for each run but the
// baseline, its difference from the baseline, better in green and worse in red.
import type { PercentileDifferenceAnswer, Propagation } from '@meshbench/schema';
import { useMemo } from 'react';
import { certaintyOf } from '../../../charts/prepare/percentile-accuracy.ts';
import { AccuracyLegend } from '../../../ui/PercentileValue.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import { deltaRows } from '../prepare/deltas.ts';
import { DeltaCells, DeltaHead } from './DeltaCells.tsx';

// Durations carry their unit in each cell (s or min where ms would not read).
const UNIT: Record<string, string> = { ms: '', share: '', count: 'proxies' };

export function DeltaTable({
  runs,
  summaries,
  intervals,
  intervalError,
  intervalsPending = false,
}: {
  runs: ComparedRun[];
  summaries: (Propagation | null)[];
  intervals: (readonly PercentileDifferenceAnswer[] | undefined)[];
  intervalError?: unknown;
  intervalsPending?: boolean;
}) {
  const rows = useMemo(() => deltaRows(summaries, intervals), [summaries, intervals]);
  const certainties = useMemo(
    () => summaries.flatMap((s) => s?.percentiles.map(certaintyOf) ?? []),
    [summaries],
  );
  return (
    <div className="table-wrap delta-wrap">
      <table
        className="data delta-table"
        data-testid="delta-table"
        data-intervals={intervalError ? 'error' : intervalsPending ? 'reading' : 'read'}
      >
        <DeltaHead runs={runs} lead={<th rowSpan={2}>Metric</th>} />
        <tbody>
          {rows.map(({ metric, cells }) => (
            <tr key={metric.key} data-metric={metric.key}>
              <th scope="row" title={`${metric.better} is better`}>
                {metric.label}
                {UNIT[metric.unit] && <span className="unit"> {UNIT[metric.unit]}</span>}
              </th>
              {cells.map((cell, i) => (
                <DeltaCells
                  key={`${i}-${metric.key}`}
                  cell={cell}
                  baseline={i === 0}
                  testId={`${i}-${metric.key}`}
                />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="table-note">
        Differences from the baseline are coloured only where they are significant:{' '}
        <span className="delta-better">better</span> (lower latency, a higher share within the
        threshold, fewer proxies that never applied it) or{' '}
        <span className="delta-worse">worse</span> when a percentile's 95 % bootstrap interval of
        the difference excludes 0 (an estimate's: when the two bounds do not meet), when two shares
        differ beyond their sampling spread, and for counts of proxies; the rest, mean and max
        included, are shown uncoloured. Percentiles are nearest-rank.
        {intervalError
          ? ' (The intervals could not be read: percentiles are uncoloured.)'
          : intervalsPending
            ? ' (Reading the intervals: percentiles are uncoloured until they are in.)'
            : null}
      </p>
      <AccuracyLegend certainties={certainties} />
    </div>
  );
}
