// The run page's latency histogram of one change: fetches the bins for the scale picked and
// hands them to HistogramView, with the percentiles and threshold the URL marks.
import type { Propagation } from '@meshbench/schema';
import { useMemo } from 'react';
import { propagationUrl } from '../../../api/urls.ts';
import { formatCount, formatDurationMs } from '../../../charts/prepare/format.ts';
import { prepareHistogram } from '../../../charts/prepare/histogram.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { useUrlScale } from '../../../ui/url-state.ts';
import type { PropagationOptions } from '../hooks/propagation-options.ts';
import {
  FIRST_HISTOGRAM_SCALE,
  histogramParams,
  usePropagationHistogram,
} from '../hooks/use-propagation.ts';
import { ChartData } from './ChartData.tsx';
import { HistogramMarksForm } from './HistogramMarksForm.tsx';
import { HistogramView } from './HistogramView.tsx';

export function HistogramPanel({
  runId,
  summary,
  color,
  options,
  onOptions,
}: {
  runId: string;
  summary: Propagation;
  color: string;
  options: PropagationOptions;
  onOptions: (options: PropagationOptions) => void;
}) {
  const [scale, setScale] = useUrlScale('histogram', FIRST_HISTOGRAM_SCALE);
  const params = histogramParams(scale, options);
  const query = usePropagationHistogram(runId, summary.change.id, params);
  const nothing =
    summary.count === 0 || query.data?.count === 0 || query.data?.histogramRange === 'none';
  const histogram = useMemo(
    () =>
      query.data
        ? prepareHistogram(query.data, {
            percentiles: options.percentiles,
            withinMs: query.data.withinMs,
          })
        : null,
    [query.data, options.percentiles],
  );
  return (
    <HistogramView
      histogram={histogram}
      color={color}
      scale={scale}
      onScale={setScale}
      name="histogram"
      stage={summary.stage}
      testIds={{ panel: 'histogram-panel', chart: 'histogram-chart', note: 'histogram-note' }}
      drawnScale={query.data?.scale}
      busy={query.isFetching}
      state={
        nothing ? (
          <p className="state">No applications to draw.</p>
        ) : query.isPending ? (
          <Loading what="histogram" />
        ) : query.isError ? (
          <ErrorMessage error={query.error} what="the histogram" />
        ) : undefined
      }
      empty="No applications in range."
      controls={
        <HistogramMarksForm
          options={options}
          onOptions={onOptions}
          name={`histogram-${summary.change.id}`}
        />
      }
    >
      {!nothing && histogram && (
        <ChartData
          testId="histogram"
          csvUrl={propagationUrl(runId, summary.change.id, { ...params, format: 'csv' })}
          columns={['from', 'to', 'proxies']}
          rows={histogram.bars.map((b) => [
            formatDurationMs(b.fromMs),
            formatDurationMs(b.toMs),
            formatCount(b.count),
          ])}
        />
      )}
    </HistogramView>
  );
}
