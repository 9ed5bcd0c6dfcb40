// Runs, one run and its changes, fetched and cached by react-query.
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../api/client.ts';
import type { RunFilters } from '../../../api/urls.ts';

export function useRuns(filters: RunFilters) {
  return useQuery({
    queryKey: ['runs', filters],
    queryFn: ({ signal }) => api.runs(filters, signal),
  });
}

export function useRun(runId: string) {
  return useQuery({
    queryKey: ['run', runId],
    queryFn: ({ signal }) => api.run(runId, signal),
  });
}

export function useChanges(runId: string) {
  return useQuery({
    queryKey: ['changes', runId],
    queryFn: ({ signal }) => api.changes(runId, signal),
  });
}
