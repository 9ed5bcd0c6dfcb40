// A run's stages over time, from its interval histograms; a run without interval data (or an
// API without the endpoint) answers 404, which means "no stages view", not an error.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiRequestError, meshbench } from '../../../api/client.ts';

/** The stages at the percentiles a view shows (one query for the page and the route prefetch). */
export function loadStagesQuery(runId: string, percentiles: readonly number[]) {
  const q = [...new Set([50, 99, ...percentiles])].sort((a, b) => a - b).join(',');
  return queryOptions({
    queryKey: ['load-stages', runId, q],
    queryFn: async ({ signal }) => {
      try {
        return await meshbench.runs.loadStages(runId, { percentiles: q }, { signal });
      } catch (error) {
        if (error instanceof ApiRequestError && error.status === 404) return null;
        throw error;
      }
    },
  });
}

export function useLoadStages(runId: string, percentiles: readonly number[]) {
  return useQuery(loadStagesQuery(runId, percentiles));
}
