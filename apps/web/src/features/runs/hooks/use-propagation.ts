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
import {
  DEFAULT_PROPAGATION_OPTIONS,
  isDefaultOptions,
  type PropagationOptions,
  requestedPercentiles,
} from './propagation-options.ts';

/** The summary request: the API's defaults for the histogram, which the CDF view ignores. */
export const SUMMARY_PARAMS: PropagationParams = { bins: HISTOGRAM_BINS };

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

/** The histogram request for a scale, or null while there is no summary to size it from. */
export function histogramParams(
  summary: Propagation | undefined,
  scale: HistogramScale,
  options: PropagationOptions = DEFAULT_PROPAGATION_OPTIONS,
): PropagationParams | null {
  if (!summary || summary.count === 0) return null;
  const asked = optionParams(options);
  if (scale === 'log') {
    return {
      scale,
      bins: HISTOGRAM_BINS,
      ...logHistogramRange(summary.minMs, summary.cdf),
      ...asked,
    };
  }
  const range = linearHistogramRange(summary.percentiles, options.withinMs);
  return range ? { scale, bins: HISTOGRAM_BINS, ...range, ...asked } : null;
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
