// What this replica has received on every ingest path, from GET /api/v1/ingest/stats, read
// again every few seconds while the page is open.
import type { IngestStats } from '@meshbench/schema';
import { useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { readWriteToken } from '../../../ui/write-token.ts';

export const INGEST_REFRESH_MS = 3000;

export function useIngestStats() {
  return useQuery({
    queryKey: ['ingest-stats'],
    queryFn: ({ signal }): Promise<IngestStats> =>
      // With the saved token: the last rejection and malformed line are shown only to the
      // project they came from (or the admin).
      meshbench.ingestStats({ signal, token: readWriteToken() || undefined }),
    refetchInterval: INGEST_REFRESH_MS,
  });
}
