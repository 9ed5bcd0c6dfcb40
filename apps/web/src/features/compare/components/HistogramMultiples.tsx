// One latency histogram per run, side by side on the same x and y axes.
import type { HistogramScale, Propagation } from '@meshbench/schema';
import { useMemo } from 'react';
import { HistogramChart } from '../../../charts/HistogramChart.tsx';
import { formatDuration } from '../../../charts/prepare/format.ts';
import { prepareHistogram } from '../../../charts/prepare/histogram.ts';
import { shareHistogramAxes } from '../../../charts/prepare/histogram-multiples.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { ScaleToggle } from '../../../ui/ScaleToggle.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';

export type HistogramSource = Pick<Propagation, 'histogram' | 'underflow' | 'overflow' | 'scale'>;

export function HistogramMultiples({
  runs,
  histograms,
  scale,
  onScale,
  busy = false,
  error = null,
  note,
}: {
  runs: ComparedRun[];
  /** One per run: undefined while it loads, null for a run without this change. */
  histograms: (HistogramSource | null | undefined)[];
  scale: HistogramScale;
  onScale: (scale: HistogramScale) => void;
  busy?: boolean;
  error?: unknown;
  note?: string;
}) {
  const prepared = useMemo(
    () => shareHistogramAxes(histograms.map((h) => (h ? prepareHistogram(h) : null))),
    [histograms],
  );
  const domain = prepared.find((h) => h)?.domain;
  return (
    <div className="panel" data-testid="histogram-multiples">
      <div className="panel-head">
        <div>
          <h3>Latency histograms</h3>
          <p className="panel-sub">
            Proxies by time to apply the change, same axes for every run
            {domain && `, ${formatDuration(domain[0])} to ${formatDuration(domain[1])}`}
            {note && ` · ${note}`}
          </p>
        </div>
        <ScaleToggle name="compare-histogram" value={scale} onChange={onScale} />
      </div>
      {error ? (
        <ErrorMessage error={error} what="the histograms" />
      ) : (
        <div className="multiples" data-count={runs.length} aria-busy={busy}>
          {runs.map((r, i) => {
            const h = prepared[i];
            const source = histograms[i];
            const notes = [h?.belowNote, h?.aboveNote].filter(Boolean);
            return (
              <figure
                key={r.key}
                className="multiple"
                data-testid="histogram-multiple"
                data-scale={source?.scale}
              >
                <figcaption>
                  <span className="mesh-swatch" style={{ background: r.style.color }} />
                  {r.label}
                </figcaption>
                <div className="chart-box chart-box-small">
                  {source === undefined ? (
                    <Loading what="histogram" />
                  ) : h ? (
                    <HistogramChart histogram={h} color={r.style.color} height={200} />
                  ) : (
                    <p className="state">No applications to draw.</p>
                  )}
                </div>
                <p className="chart-note">{notes.length > 0 ? notes.join(' · ') : '\u00a0'}</p>
              </figure>
            );
          })}
        </div>
      )}
    </div>
  );
}
