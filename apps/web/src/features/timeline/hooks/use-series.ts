// A run's metric series with their stats over the run (the distributions' percentiles).
import type { Series } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';

export function useSeries(runId: string) {
  return useQuery({
    queryKey: ['series', runId],
    queryFn: ({ signal }): Promise<Series[]> => meshbench.runs.series(runId, {}, { signal }),
    enabled: runId !== '',
  });
}
