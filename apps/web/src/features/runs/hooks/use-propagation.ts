// A change's propagation: one request gives the tables, the CDF and the histogram, its range
// chosen by the API from the answer's own percentiles (`range: 'auto'`). The linear
// histogram is the summary's own (the same request); the log one a request of its own.
import type { HistogramScale } from '@meshbench/schema';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { type PropagationParams, propagationQuery } from '../../../api/urls.ts';
import { HISTOGRAM_BINS } from '../../../charts/prepare/histogram.ts';
import {
  DEFAULT_PROPAGATION_OPTIONS,
  isDefaultOptions,
  type PropagationOptions,
  requestedPercentiles,
} from './propagation-options.ts';

/** The summary request: with the linear histogram the page draws first, its range the API's. */
export const SUMMARY_PARAMS: PropagationParams = { bins: HISTOGRAM_BINS, range: 'auto' };

/**
 * The percentiles and threshold of the options, only when they differ from the default;
 * the stage when one is asked for.
 */
function optionParams(options: PropagationOptions): PropagationParams {
  const stage = options.stage === undefined ? {} : { stage: options.stage };
  const clock: PropagationParams = options.clock === 'corrected' ? { clock: 'corrected' } : {};
  return isDefaultOptions(options)
    ? { ...stage, ...clock }
    : {
        percentiles: requestedPercentiles(options),
        withinMs: options.withinMs,
        ...stage,
        ...clock,
      };
}

/** The summary request; with the default options exactly SUMMARY_PARAMS (the same key). */
export const summaryParams = (options: PropagationOptions = DEFAULT_PROPAGATION_OPTIONS) => ({
  ...SUMMARY_PARAMS,
  ...optionParams(options),
});

export const summaryQuery = (
  runId: string,
  changeId: string,
  options: PropagationOptions = DEFAULT_PROPAGATION_OPTIONS,
) => {
  const params = summaryParams(options);
  return queryOptions({
    queryKey: ['propagation', runId, changeId, params],
    queryFn: ({ signal }) =>
      meshbench.runs.propagation(runId, changeId, propagationQuery(params), { signal }),
  });
};

export function usePropagationSummary(
  runId: string,
  changeId: string,
  options: PropagationOptions = DEFAULT_PROPAGATION_OPTIONS,
) {
  return useQuery(summaryQuery(runId, changeId, options));
}

/** The scale the histogram opens in: linear, the body of the distribution. */
export const FIRST_HISTOGRAM_SCALE: HistogramScale = 'linear';

/**
 * The histogram request for a scale: linear, the summary's own request (one request, one
 * cache entry); log, the same asked in the log scale. Neither waits for the summary.
 */
export function histogramParams(
  scale: HistogramScale,
  options: PropagationOptions = DEFAULT_PROPAGATION_OPTIONS,
): PropagationParams {
  const summary = summaryParams(options);
  return scale === 'log' ? { ...summary, scale } : summary;
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
  params: PropagationParams,
) {
  return useQuery({
    ...histogramQuery(runId, changeId, params),
    // Toggling linear/log keeps the old bars on screen until the new ones arrive.
    placeholderData: keepPreviousData,
  });
}
