// The run page's convergence curve of one change, with its data as CSV and as a table.
import type { Propagation } from '@meshbench/schema';
import { propagationUrl } from '../../../api/urls.ts';
import { formatDurationMs, formatPercent } from '../../../charts/prepare/format.ts';
import { SUMMARY_PARAMS } from '../hooks/use-propagation.ts';
import { ChartData } from './ChartData.tsx';
import { ConvergenceView } from './ConvergenceView.tsx';

export function ConvergencePanel({
  runId,
  summary,
  color,
}: {
  runId: string;
  summary: Propagation;
  color: string;
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
        csvUrl={propagationUrl(runId, summary.change.id, { ...SUMMARY_PARAMS, format: 'csv' })}
        columns={['time', 'updated']}
        rows={summary.cdf.map((c) => [formatDurationMs(c.ms), formatPercent(c.fraction)])}
      />
    </ConvergenceView>
  );
}
