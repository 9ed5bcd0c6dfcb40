// A change's latency histogram, linear (the body) or log (the whole tail), drawn from bins
// already in hand. A view: the run page's panel fetches the bins, a report has them frozen.
import type { HistogramScale } from '@meshbench/schema';
import type { ReactNode } from 'react';
import { HistogramChart } from '../../../charts/HistogramChart.tsx';
import { formatDuration } from '../../../charts/prepare/format.ts';
import type { PreparedHistogram } from '../../../charts/prepare/histogram.ts';
import { ScaleToggle } from '../../../ui/ScaleToggle.tsx';

export function HistogramView({
  histogram,
  color,
  scale,
  onScale,
  name,
  testIds,
  drawnScale,
  busy,
  state,
  empty,
  children,
  controls,
  stage = 'applied',
}: {
  histogram: PreparedHistogram | null;
  color: string;
  scale: HistogramScale;
  onScale: (scale: HistogramScale) => void;
  /** The scale toggle's name, unique on the page. */
  name: string;
  testIds: { panel?: string; chart: string; note?: string };
  /** The scale of the bins drawn (none while the first arrive; the old ones while new load). */
  drawnScale: HistogramScale | undefined;
  busy?: boolean | undefined;
  /** In place of the chart: why there is none yet (loading, an error). */
  state?: ReactNode;
  /** Said when there are no bins to draw. */
  empty: string;
  /** Below the chart (its data as CSV and a table). */
  children?: ReactNode;
  /** Beside the scale toggle (the run page's marked percentiles and threshold). */
  controls?: ReactNode;
  /** The stage the bins are of (the summary's). */
  stage?: string;
}) {
  const notes = [histogram?.belowNote, histogram?.aboveNote, histogram?.markersNote].filter(
    Boolean,
  );
  return (
    <div className="panel" data-testid={testIds.panel}>
      <div className="panel-head">
        <div>
          <h3>Latency histogram</h3>
          <p className="panel-sub">
            {stage === 'applied'
              ? 'Proxies by time to apply the change'
              : `Proxies by time until ${stage}`}
            {histogram &&
              `, ${formatDuration(histogram.domain[0])} to ${formatDuration(histogram.domain[1])}`}
          </p>
        </div>
        <ScaleToggle name={name} value={scale} onChange={onScale} />
      </div>
      {controls}
      <div
        className="chart-box"
        data-testid={testIds.chart}
        data-scale={drawnScale}
        aria-busy={busy}
      >
        {state ??
          (histogram ? (
            <HistogramChart histogram={histogram} color={color} />
          ) : (
            <p className="state">{empty}</p>
          ))}
      </div>
      <p className="chart-note" data-testid={testIds.note}>
        {notes.length > 0 ? notes.join(' · ') : '\u00a0'}
      </p>
      {children}
    </div>
  );
}
