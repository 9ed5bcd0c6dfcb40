// One change of a run: its numbers, its histogram and convergence curve, and its tail by cause.
import type { ChangeList } from '@meshbench/schema';
import { propagationUrl } from '../../../api/urls.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { TailPanel } from '../../tail/components/TailPanel.tsx';
import type { PropagationOptions } from '../hooks/propagation-options.ts';
import { summaryParams, usePropagationSummary } from '../hooks/use-propagation.ts';
import { ChangeHead } from './ChangeHead.tsx';
import { ConvergencePanel } from './ConvergencePanel.tsx';
import { HistogramPanel } from './HistogramPanel.tsx';
import { PropagationTable } from './PropagationTable.tsx';

export function ChangeSection({
  runId,
  change,
  color,
  options,
  onOptions,
}: {
  runId: string;
  change: ChangeList[number];
  color: string;
  /** The marked percentiles and the within threshold, from the page's URL. */
  options: PropagationOptions;
  onOptions: (options: PropagationOptions) => void;
}) {
  // The table reads raw (the corrected figures come beside them); the charts draw what the
  // URL's `?clock=` asks, once the run is known to have clock data.
  const { clock: asked, ...rawOptions } = options;
  const summary = usePropagationSummary(runId, change.id, rawOptions);
  const p = summary.data;
  const available = p?.clock?.available === true;
  const chartOptions: PropagationOptions =
    available && asked === 'corrected' ? options : rawOptions;
  const charts = usePropagationSummary(runId, change.id, chartOptions);
  return (
    <section className="change" data-testid="change-section" data-change-id={change.id}>
      <ChangeHead change={change} propagation={p}>
        <p className="section-exports">
          <a
            href={propagationUrl(runId, change.id, { ...summaryParams(options), format: 'csv' })}
            download
            data-testid="propagation-csv"
          >
            Propagation as CSV
          </a>
        </p>
      </ChangeHead>
      {summary.isPending ? (
        <Loading what="propagation" />
      ) : summary.isError ? (
        <ErrorMessage error={summary.error} what="the propagation summary" />
      ) : (
        <>
          <PropagationTable propagation={summary.data} />
          {available && (
            <p className="clock-toggle" data-testid="clock-toggle">
              Charts drawn over{' '}
              <button
                type="button"
                aria-pressed={chartOptions.clock !== 'corrected'}
                onClick={() => onOptions(rawOptions)}
              >
                raw
              </button>{' '}
              <button
                type="button"
                aria-pressed={chartOptions.clock === 'corrected'}
                onClick={() => onOptions({ ...options, clock: 'corrected' })}
              >
                clock-corrected
              </button>{' '}
              latencies
            </p>
          )}
          <div className="chart-grid">
            <HistogramPanel
              runId={runId}
              summary={charts.data ?? summary.data}
              color={color}
              options={chartOptions}
              onOptions={onOptions}
            />
            <ConvergencePanel
              runId={runId}
              summary={charts.data ?? summary.data}
              color={color}
              options={chartOptions}
            />
          </div>
          <TailPanel runId={runId} change={change} />
        </>
      )}
    </section>
  );
}
