// A report: one request, everything the page shows (it must work for whoever has only the link).
import { useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';

export function useReport(slug: string) {
  return useQuery({
    queryKey: ['report', slug],
    queryFn: ({ signal }) => meshbench.reports.get(slug, { signal }),
    // A report is frozen: once read, it does not change.
    staleTime: Number.POSITIVE_INFINITY,
  });
}
