// A churn run's propagation over all its changes, asked with the page's percentiles and
// threshold so the per-change table reads as the change sections below it do.
import type { HistogramScale } from '@meshbench/schema';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { runPropagationUrl } from '../../../api/urls.ts';

/** The run page's percentiles and threshold (its URL's), so the table reads as its sections. */
export interface ChurnOptions {
  percentiles: readonly number[];
  withinMs: number;
}

/** Columns of the heatmap: fine enough to see a tail, coarse enough to read a cell. */
export const HEATMAP_BINS = 40;

export function runPropagationParams(options: ChurnOptions, scale: HistogramScale) {
  return {
    percentiles: options.percentiles.join(','),
    withinMs: options.withinMs,
    bins: HEATMAP_BINS,
    scale,
  };
}

/** The read of all the run's changes (one query for the section and the route prefetch). */
export function runPropagationQuery(runId: string, options: ChurnOptions, scale: HistogramScale) {
  const params = runPropagationParams(options, scale);
  return queryOptions({
    queryKey: ['run-propagation', runId, params],
    queryFn: ({ signal }) => meshbench.runs.runPropagation(runId, params, { signal }),
  });
}

export function useRunPropagation(runId: string, options: ChurnOptions, scale: HistogramScale) {
  return useQuery({
    ...runPropagationQuery(runId, options, scale),
    // Toggling linear/log keeps the old heatmap on screen until the new one arrives.
    placeholderData: keepPreviousData,
  });
}

export { runPropagationUrl };
