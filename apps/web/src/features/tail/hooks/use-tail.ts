// A change's tail, and what sets it apart, at the threshold chosen; the previous answer
// stays on screen while the next one loads.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { type TailParams, tailQuery } from '../../../api/urls.ts';
import type { TailThreshold } from '../../../charts/prepare/tail.ts';

/** The drill-down lists this many of the slowest proxies. */
export const SLOWEST_LIMIT = 50;

/** Auto asks for neither: the API's rule picks the cut and says which. */
export function tailParams(threshold: TailThreshold): TailParams {
  return threshold.thresholdP !== undefined
    ? { thresholdP: threshold.thresholdP, limit: SLOWEST_LIMIT }
    : threshold.thresholdMs !== undefined
      ? { thresholdMs: threshold.thresholdMs, limit: SLOWEST_LIMIT }
      : { limit: SLOWEST_LIMIT };
}

export function useTail(runId: string, changeId: string, threshold: TailThreshold) {
  const params = tailParams(threshold);
  return useQuery({
    queryKey: ['tail', runId, changeId, params],
    queryFn: ({ signal }) => meshbench.runs.tail(runId, changeId, tailQuery(params), { signal }),
    placeholderData: keepPreviousData,
  });
}

/** The attribute values over-represented in the tail at the threshold chosen. */
export function useTailAttribution(runId: string, changeId: string, threshold: TailThreshold) {
  const params =
    threshold.thresholdP !== undefined
      ? { thresholdP: threshold.thresholdP }
      : threshold.thresholdMs !== undefined
        ? { thresholdMs: threshold.thresholdMs }
        : {};
  return useQuery({
    queryKey: ['tail-attribution', runId, changeId, params],
    queryFn: ({ signal }) => meshbench.runs.tailAttribution(runId, changeId, params, { signal }),
    placeholderData: keepPreviousData,
  });
}
