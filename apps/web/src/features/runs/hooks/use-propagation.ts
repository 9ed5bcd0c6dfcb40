// A change's propagation: the summary (tables, CDF) first, then the histogram in the scale
// asked for, whose range depends on the summary's percentiles.
import type { HistogramScale, Propagation } from '@meshbench/schema';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { type PropagationParams, propagationQuery } from '../../../api/urls.ts';
import {
  HISTOGRAM_BINS,
  linearHistogramRange,
  logHistogramRange,
} from '../../../charts/prepare/histogram.ts';

/** The summary request: the API's defaults for the histogram, which the CDF view ignores. */
export const SUMMARY_PARAMS: PropagationParams = { bins: HISTOGRAM_BINS };

export const summaryQuery = (runId: string, changeId: string) =>
  queryOptions({
    queryKey: ['propagation', runId, changeId, SUMMARY_PARAMS],
    queryFn: ({ signal }) =>
      meshbench.runs.propagation(runId, changeId, propagationQuery(SUMMARY_PARAMS), { signal }),
  });

export function usePropagationSummary(runId: string, changeId: string) {
  return useQuery(summaryQuery(runId, changeId));
}

/** The scale the histogram opens in: linear, the body of the distribution. */
export const FIRST_HISTOGRAM_SCALE: HistogramScale = 'linear';

/** The histogram request for a scale, or null while there is no summary to size it from. */
export function histogramParams(
  summary: Propagation | undefined,
  scale: HistogramScale,
): PropagationParams | null {
  if (!summary || summary.count === 0) return null;
  if (scale === 'log') {
    return { scale, bins: HISTOGRAM_BINS, ...logHistogramRange(summary.minMs, summary.cdf) };
  }
  const range = linearHistogramRange(summary.percentiles);
  return range ? { scale, bins: HISTOGRAM_BINS, ...range } : null;
}

export const histogramQuery = (runId: string, changeId: string, params: PropagationParams) =>
  queryOptions({
    queryKey: ['propagation', runId, changeId, params],
    queryFn: ({ signal }) =>
      meshbench.runs.propagation(runId, changeId, propagationQuery(params), { signal }),
  });

export function usePropagationHistogram(
  runId: string,
  changeId: string,
  params: PropagationParams | null,
) {
  return useQuery({
    ...histogramQuery(runId, changeId, params ?? {}),
    enabled: params !== null,
    // Toggling linear/log keeps the old bars on screen until the new ones arrive.
    placeholderData: keepPreviousData,
  });
}
