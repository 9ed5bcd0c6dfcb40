// A run's scale-up timeline.
import type { Timeline } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';

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
