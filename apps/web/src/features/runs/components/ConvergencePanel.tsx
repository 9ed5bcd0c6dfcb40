// The run page's convergence curve of one change, with its data as CSV and as a table.
import type { Propagation } from '@meshbench/schema';
import { propagationUrl } from '../../../api/urls.ts';
import { formatDurationMs, formatPercent } from '../../../charts/prepare/format.ts';
import type { PropagationOptions } from '../hooks/propagation-options.ts';
import { summaryParams } from '../hooks/use-propagation.ts';
import { ChartData } from './ChartData.tsx';
import { ConvergenceView } from './ConvergenceView.tsx';

export function ConvergencePanel({
  runId,
  summary,
  color,
  options,
}: {
  runId: string;
  summary: Propagation;
  color: string;
  /** The page's percentiles and threshold: the CSV is of the summary drawn. */
  options?: PropagationOptions;
}) {
  return (
    <ConvergenceView
      summary={summary}
      color={color}
      name="convergence"
      testIds={{ panel: 'convergence-panel', chart: 'convergence-chart' }}
      deferred
      emptyNote={'\u00a0'}
    >
      <ChartData
        testId="convergence"
        csvUrl={propagationUrl(runId, summary.change.id, {
          ...summaryParams(options),
          format: 'csv',
        })}
        columns={['time', 'updated']}
        rows={summary.cdf.map((c) => [formatDurationMs(c.ms), formatPercent(c.fraction)])}
      />
    </ConvergenceView>
  );
}
