// This replica's StatsD listener and OTLP receiver counters, from GET /api/v1/statsd/stats,
// read again every few seconds while the page is open.
import { type StatsdStats, statsdStats } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { getParsedJson } from '../../../api/client.ts';

export const INGEST_STATS_URL = '/api/v1/statsd/stats';
export const INGEST_REFRESH_MS = 3000;

export function useIngestStats() {
  return useQuery({
    queryKey: ['ingest-stats'],
    queryFn: ({ signal }): Promise<StatsdStats> =>
      getParsedJson(INGEST_STATS_URL, statsdStats, signal),
    refetchInterval: INGEST_REFRESH_MS,
  });
}
