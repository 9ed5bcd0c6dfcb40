// One change of a run: its numbers, its histogram and convergence curve, and its tail by cause.
import type { ChangeList } from '@meshbench/schema';
import { perfettoTraceUrl, propagationUrl } from '../../../api/urls.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { TailPanel } from '../../tail/components/TailPanel.tsx';
import { type PropagationOptions, stageFor } from '../hooks/propagation-options.ts';
import { summaryParams, usePropagationSummary } from '../hooks/use-propagation.ts';
import { ChangeHead } from './ChangeHead.tsx';
import { ConvergencePanel } from './ConvergencePanel.tsx';
import { HistogramPanel } from './HistogramPanel.tsx';
import { PropagationTable } from './PropagationTable.tsx';
import { StageGapPanel } from './StageGapPanel.tsx';
import { StageSelector } from './StageSelector.tsx';

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
  // The URL's stage where this change has it; else the API's default for the change.
  const stage = stageFor(options, change.stages);
  const own = stage === options.stage ? options : { ...options, stage };
  // The table reads raw (the corrected figures come beside them); the charts draw what the
  // URL's `?clock=` asks, once the run is known to have clock data.
  const { clock: asked, ...rawOptions } = own;
  const summary = usePropagationSummary(runId, change.id, rawOptions);
  const p = summary.data;
  const available = p?.clock?.available === true;
  const chartOptions: PropagationOptions = available && asked === 'corrected' ? own : rawOptions;
  const charts = usePropagationSummary(runId, change.id, chartOptions);
  return (
    <section className="change" data-testid="change-section" data-change-id={change.id}>
      <ChangeHead change={change} propagation={p}>
        <p className="section-exports">
          <a
            href={propagationUrl(runId, change.id, { ...summaryParams(own), format: 'csv' })}
            download
            data-testid="propagation-csv"
          >
            Propagation as CSV
          </a>
          <span>
            <a
              href={perfettoTraceUrl(runId, change.id)}
              download
              data-testid="perfetto-trace"
              title="A track per node, a slice per proxy from the change to each stage"
            >
              Export Perfetto trace
            </a>{' '}
            <span className="muted">
              (open in{' '}
              <a href="https://ui.perfetto.dev" target="_blank" rel="noreferrer">
                ui.perfetto.dev
              </a>
              )
            </span>
          </span>
        </p>
        {p && (
          <StageSelector
            stages={change.stages}
            value={p.stage}
            name={change.id}
            onChange={(next) => onOptions({ ...options, stage: next })}
          />
        )}
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
                onClick={() => onOptions({ ...own, clock: 'corrected' })}
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
          <StageGapPanel runId={runId} changeId={change.id} stages={change.stages} color={color} />
          <TailPanel runId={runId} change={change} />
        </>
      )}
    </section>
  );
}
