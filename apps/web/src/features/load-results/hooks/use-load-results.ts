// A run's load results, and the upload that adds to them (and refreshes them).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';

export const loadResultsKey = (runId: string) => ['load-results', runId] as const;

export function useLoadResults(runId: string) {
  return useQuery({
    queryKey: loadResultsKey(runId),
    queryFn: ({ signal }) => meshbench.runs.results(runId, {}, { signal }),
  });
}

export function useUploadResults(runId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (v: { file: File; format: string; token?: string }) =>
      // The file as it is (the API tells the format apart), with the write token if any.
      meshbench.runs.importResults(
        runId,
        { body: v.file, query: { format: v.format } },
        { token: v.token },
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: loadResultsKey(runId) }),
  });
}
