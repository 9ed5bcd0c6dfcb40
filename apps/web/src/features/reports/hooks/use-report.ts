// A report: one request, everything the page shows (it must work for whoever has only the link).
import { useQuery } from '@tanstack/react-query';
import { browseApi } from '../../../api/client.ts';

export function useReport(slug: string) {
  return useQuery({
    queryKey: ['report', slug],
    queryFn: ({ signal }) => browseApi.report(slug, signal),
    // A report is frozen: once read, it does not change.
    staleTime: Number.POSITIVE_INFINITY,
  });
}
