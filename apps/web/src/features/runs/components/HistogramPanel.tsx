// The latency histogram of one change, linear (the body) or log (the whole tail).
import type { HistogramScale, Propagation } from '@meshbench/schema';
import { useMemo, useState } from 'react';
import { propagationUrl } from '../../../api/urls.ts';
import { HistogramChart } from '../../../charts/HistogramChart.tsx';
import { formatCount, formatDuration, formatMsValue } from '../../../charts/prepare/format.ts';
import { prepareHistogram } from '../../../charts/prepare/histogram.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { ScaleToggle } from '../../../ui/ScaleToggle.tsx';
import {
  FIRST_HISTOGRAM_SCALE,
  histogramParams,
  usePropagationHistogram,
} from '../hooks/use-propagation.ts';
import { ChartData } from './ChartData.tsx';

export function HistogramPanel({
  runId,
  summary,
  color,
}: {
  runId: string;
  summary: Propagation;
  color: string;
}) {
  const [scale, setScale] = useState<HistogramScale>(FIRST_HISTOGRAM_SCALE);
  const params = histogramParams(summary, scale);
  const query = usePropagationHistogram(runId, summary.change.id, params);
  const histogram = useMemo(() => (query.data ? prepareHistogram(query.data) : null), [query.data]);
  const notes = [histogram?.belowNote, histogram?.aboveNote].filter(Boolean);
  return (
    <div className="panel" data-testid="histogram-panel">
      <div className="panel-head">
        <div>
          <h3>Latency histogram</h3>
          <p className="panel-sub">
            Proxies by time to apply the change
            {histogram &&
              `, ${formatDuration(histogram.domain[0])} to ${formatDuration(histogram.domain[1])}`}
          </p>
        </div>
        <ScaleToggle name="histogram" value={scale} onChange={setScale} />
      </div>
      <div
        className="chart-box"
        data-testid="histogram-chart"
        data-scale={query.data?.scale}
        aria-busy={query.isFetching}
      >
        {params === null ? (
          <p className="state">No applications to draw.</p>
        ) : query.isPending ? (
          <Loading what="histogram" />
        ) : query.isError ? (
          <ErrorMessage error={query.error} what="the histogram" />
        ) : histogram ? (
          <HistogramChart histogram={histogram} color={color} />
        ) : (
          <p className="state">No applications in range.</p>
        )}
      </div>
      <p className="chart-note" data-testid="histogram-note">
        {notes.length > 0 ? notes.join(' · ') : '\u00a0'}
      </p>
      {params && histogram && (
        <ChartDataBlock runId={runId} summary={summary} params={params} histogram={histogram} />
      )}
    </div>
  );
}

function ChartDataBlock({
  runId,
  summary,
  params,
  histogram,
}: {
  runId: string;
  summary: Propagation;
  params: NonNullable<ReturnType<typeof histogramParams>>;
  histogram: NonNullable<ReturnType<typeof prepareHistogram>>;
}) {
  return (
    <ChartData
      testId="histogram"
      csvUrl={propagationUrl(runId, summary.change.id, { ...params, format: 'csv' })}
      columns={['from (ms)', 'to (ms)', 'proxies']}
      rows={histogram.bars.map((b) => [
        formatMsValue(b.fromMs),
        formatMsValue(b.toMs),
        formatCount(b.count),
      ])}
    />
  );
}
