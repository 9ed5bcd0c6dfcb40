// What this replica has received on every ingest path, from GET /api/v1/ingest/stats, read
// again every few seconds while the page is open.
import { type IngestStats, ingestStats } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { getParsedJson } from '../../../api/client.ts';

export const INGEST_STATS_URL = '/api/v1/ingest/stats';
export const INGEST_REFRESH_MS = 3000;

export function useIngestStats() {
  return useQuery({
    queryKey: ['ingest-stats'],
    queryFn: ({ signal }): Promise<IngestStats> =>
      getParsedJson(INGEST_STATS_URL, ingestStats, signal),
    refetchInterval: INGEST_REFRESH_MS,
  });
}
