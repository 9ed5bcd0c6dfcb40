// A run's load results, and the upload that adds to them (and refreshes them).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';

export const loadResultsKey = (runId: string) => ['load-results', runId] as const;

/**
 * The run's results; with `percentiles` (e.g. "50,99.9"), those a file lacks are computed
 * from its histogram where it has one. The same key prefix, so that an upload refreshes all.
 */
export function useLoadResults(runId: string, percentiles?: string) {
  return useQuery({
    queryKey: percentiles ? [...loadResultsKey(runId), percentiles] : loadResultsKey(runId),
    queryFn: ({ signal }) =>
      meshbench.runs.results(runId, percentiles ? { percentiles } : {}, { signal }),
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
