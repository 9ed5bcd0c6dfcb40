// A run's metric series with their stats over the run (the distributions' percentiles).
import { type Series, seriesList } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { getParsedJson } from '../../../api/client.ts';
import { runSeriesUrl } from '../../../api/urls.ts';

export function useSeries(runId: string) {
  return useQuery({
    queryKey: ['series', runId],
    queryFn: ({ signal }): Promise<Series[]> =>
      getParsedJson(runSeriesUrl(runId), seriesList, signal),
    enabled: runId !== '',
  });
}
