// Runs, one run and its changes, fetched and cached by react-query.
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { type RunFilters, type RunListQuery, runListQuery, runsQuery } from '../../../api/urls.ts';

export function useRuns(filters: RunFilters) {
  return useQuery({
    queryKey: ['runs', filters],
    queryFn: ({ signal }) => meshbench.runs.list(runsQuery(filters), { signal }),
  });
}

/** A run, by id or share slug (one query for the page, the compare page and the prefetch). */
export const runQuery = (runId: string) =>
  queryOptions({
    queryKey: ['run', runId],
    queryFn: ({ signal }) => meshbench.runs.get(runId, { signal }),
  });

export const changesQuery = (runId: string) =>
  queryOptions({
    queryKey: ['changes', runId],
    queryFn: ({ signal }) => meshbench.runs.changes(runId, { signal }),
  });

export function useRun(runId: string) {
  return useQuery(runQuery(runId));
}

export function useChanges(runId: string) {
  return useQuery(changesQuery(runId));
}

/** One page of the runs list; the previous page stays on screen while the next loads. */
export function useRunList(query: RunListQuery) {
  return useQuery({
    queryKey: ['run-list', query],
    queryFn: ({ signal }) => meshbench.runs.list(runListQuery(query), { signal }),
    placeholderData: keepPreviousData,
  });
}

/** The headlines of runs by id (one query for the pages and the route prefetch). */
export const headlinesQuery = (ids: string[]) =>
  queryOptions({
    queryKey: ['run-headlines', ids],
    queryFn: async ({ signal }) =>
      new Map((await meshbench.runs.headlines(ids, { signal })).map((h) => [h.runId, h])),
    // Paging back to a page shows its headlines at once.
    staleTime: 5 * 60_000,
  });

/** The headline number of each run shown, read after the list so the list is not held up. */
export function useRunHeadlines(ids: string[]) {
  return useQuery({ ...headlinesQuery(ids), enabled: ids.length > 0 });
}

/** The values the filters offer; they change only when runs are added. */
export function useRunFacets() {
  return useQuery({
    queryKey: ['run-facets'],
    queryFn: ({ signal }) => meshbench.runs.facets({ signal }),
    staleTime: 5 * 60_000,
  });
}
