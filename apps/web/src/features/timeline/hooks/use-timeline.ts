// A run's scale-up timeline and its gate verdict (null when no threshold applied).
import type { GateResult, Timeline } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { ApiRequestError, meshbench } from '../../../api/client.ts';

/** Points per line the server downsamples to: about one per pixel of a wide chart. */
export const TIMELINE_POINTS = 1000;

export function useTimeline(runId: string) {
  return useQuery({
    queryKey: ['timeline', runId, TIMELINE_POINTS],
    queryFn: ({ signal }): Promise<Timeline> =>
      meshbench.runs.timeline(runId, { points: TIMELINE_POINTS }, { signal }),
    enabled: runId !== '',
  });
}

/** True when the timeline has something to draw. */
export function hasTimeline(t: Timeline | undefined): boolean {
  return !!t && (t.phases.length > 0 || t.series.length > 0);
}

export function useGate(runId: string) {
  return useQuery({
    queryKey: ['gate', runId],
    queryFn: async ({ signal }): Promise<GateResult | null> => {
      try {
        return await meshbench.runs.gate(runId, { signal });
      } catch (error) {
        if (error instanceof ApiRequestError && error.status === 404) return null;
        throw error;
      }
    },
    enabled: runId !== '',
  });
}
