// One metric across the runs of a benchmark, from GET /api/v1/history.
import { type HistoryQuery, history } from '@meshbench/schema';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getParsedJson } from '../../../api/client.ts';

export function historyUrl(q: Partial<HistoryQuery>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, String(v));
  return `/api/v1/history?${params}`;
}

export function useHistory(q: Partial<HistoryQuery>) {
  return useQuery({
    queryKey: ['history', q],
    queryFn: ({ signal }) => getParsedJson(historyUrl(q), history, signal),
    enabled: Boolean(q.benchmark),
    placeholderData: keepPreviousData,
  });
}
