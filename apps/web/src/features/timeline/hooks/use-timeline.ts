// A run's scale-up timeline and its gate verdict (null when no threshold applied).
import { type GateResult, gateResult, type Timeline, timeline } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { ApiRequestError, getParsedJson } from '../../../api/client.ts';
import { runGateUrl, runTimelineUrl } from '../../../api/urls.ts';

/** Points per line the server downsamples to: about one per pixel of a wide chart. */
export const TIMELINE_POINTS = 1000;

export function useTimeline(runId: string) {
  return useQuery({
    queryKey: ['timeline', runId, TIMELINE_POINTS],
    queryFn: ({ signal }): Promise<Timeline> =>
      getParsedJson(runTimelineUrl(runId, TIMELINE_POINTS), timeline, signal),
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
        return await getParsedJson(runGateUrl(runId), gateResult, signal);
      } catch (error) {
        if (error instanceof ApiRequestError && error.status === 404) return null;
        throw error;
      }
    },
    enabled: runId !== '',
  });
}
