// A run's load results, and the upload that adds to them (and refreshes them).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { browseApi, uploadLoadResults } from '../../../api/client.ts';

export const loadResultsKey = (runId: string) => ['load-results', runId] as const;

export function useLoadResults(runId: string) {
  return useQuery({
    queryKey: loadResultsKey(runId),
    queryFn: ({ signal }) => browseApi.loadResults(runId, signal),
  });
}

export function useUploadResults(runId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (v: { file: File; format: string; token?: string }) =>
      uploadLoadResults(runId, v.file, v.format, v.token),
    onSuccess: () => client.invalidateQueries({ queryKey: loadResultsKey(runId) }),
  });
}
