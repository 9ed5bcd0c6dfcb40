// One metric across the runs of a benchmark, from GET /api/v1/history.
import type { HistoryQuery } from '@meshbench/schema';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';

export function useHistory(q: Partial<HistoryQuery>) {
  return useQuery({
    queryKey: ['history', q],
    queryFn: ({ signal }) => meshbench.history(q, { signal }),
    enabled: Boolean(q.benchmark),
    placeholderData: keepPreviousData,
  });
}
