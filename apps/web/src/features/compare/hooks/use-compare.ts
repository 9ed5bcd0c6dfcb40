// The live data of a comparison: one read (GET /compare) of the runs, their changes, each
// paired change's summary (with its log histogram), the headlines and the comparability, all
// the table needs; then the linear histograms over one range for all when asked for, the
// significance and, once the numbers are on screen, the tails (the slowest read); beside them
// the load results and timelines of the runs that have them.
import type {
  Change,
  HistogramScale,
  Propagation,
  StoredLoadResult,
  Timeline,
} from '@meshbench/schema';
import { keepPreviousData, queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { type PropagationParams, propagationQuery } from '../../../api/urls.ts';
import { HISTOGRAM_BINS } from '../../../charts/prepare/histogram.ts';
import { commonHistogramRequest } from '../../../charts/prepare/histogram-multiples.ts';

/**
 * The summary of each run comes with log bins over its whole range: tails of minutes beside
 * bodies under a second, drawn on shared axes without a second round of requests.
 */
export const COMPARE_SUMMARY_PARAMS: PropagationParams = { bins: HISTOGRAM_BINS, scale: 'log' };

export const MIN_COMPARED = 2;
export const MAX_COMPARED = 4;

/** The compare page's URL: ?runs=a,b,c, deduplicated, in order. */
export function parseCompareRuns(value: string | null): string[] {
  return [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** The compare page's one first read, by the runs of its address (ids or share slugs). */
export const compareViewQuery = (refs: string[]) =>
  queryOptions({
    queryKey: ['compare-view', refs, COMPARE_SUMMARY_PARAMS],
    queryFn: ({ signal }) => {
      const { percentiles, withinMs, bins, scale } = propagationQuery(COMPARE_SUMMARY_PARAMS);
      return meshbench.compare.view(
        { runs: refs.join(','), percentiles, withinMs, bins, scale },
        { signal },
      );
    },
  });

export function useCompareView(refs: string[], enabled: boolean) {
  return useQuery({ ...compareViewQuery(refs), enabled });
}

/**
 * Each run's linear histogram over the one range that fits them all (the log ones come with
 * the summaries): asked for only when the linear view is shown, once every summary is in.
 */
export function useLinearHistograms(
  runIds: string[],
  changes: (Pick<Change, 'id'> | null)[],
  summaries: (Propagation | undefined)[],
  scale: HistogramScale,
) {
  const ready = summaries.every((s, i) => s !== undefined || changes[i] === null);
  const request =
    ready && scale === 'linear'
      ? commonHistogramRequest(
          summaries.filter((s): s is Propagation => s !== undefined),
          scale,
        )
      : null;
  const params: PropagationParams | null = request;
  const queries = useQueries({
    queries: runIds.map((runId, i) => {
      const changeId = changes[i]?.id ?? '';
      return {
        queryKey: ['propagation', runId, changeId, params],
        queryFn: ({ signal }: { signal: AbortSignal }) =>
          meshbench.runs.propagation(runId, changeId, propagationQuery(params ?? {}), { signal }),
        enabled: params !== null && changeId !== '',
        placeholderData: keepPreviousData,
      };
    }),
  });
  return { request, queries };
}

/** The tails: the slowest reads, so asked for only once the summaries are on screen. */
export function useTails(
  runIds: string[],
  changes: (Pick<Change, 'id'> | null)[],
  enabled: boolean,
) {
  return useQueries({
    queries: runIds.map((runId, i) => {
      const changeId = changes[i]?.id ?? '';
      return {
        queryKey: ['tail', runId, changeId, { limit: 20 }],
        queryFn: ({ signal }: { signal: AbortSignal }) =>
          meshbench.runs.tail(runId, changeId, { limit: 20 }, { signal }),
        enabled: enabled && changeId !== '',
      };
    }),
  });
}

/**
 * The bootstrap intervals of each run's percentile differences from the baseline's (the
 * gates' own, GET /compare/significance): asked once the summaries say which percentiles the
 * table shows. Per run, undefined until they are in.
 */
export function useCompareSignificance(
  runIds: string[],
  changes: (Pick<Change, 'id'> | null)[],
  baseline: Propagation | null | undefined,
) {
  const percentiles = baseline?.percentiles.map((x) => x.p).join(',') ?? '';
  const changeIds = changes.map((c) => c?.id ?? '');
  const query = useQuery({
    queryKey: ['compare-significance', runIds, changeIds, percentiles],
    queryFn: ({ signal }) =>
      meshbench.compare.significance(
        { runs: runIds.join(','), changes: changeIds.join(','), percentiles },
        { signal },
      ),
    enabled: percentiles !== '' && changeIds[0] !== '',
  });
  return {
    intervals: runIds.map((_, i) => query.data?.runs[i]?.differences),
    error: query.error,
    /** Asked for and not in yet (or the summaries that say what to ask are not in). */
    pending: query.isLoading,
  };
}

/**
 * Per run, its load results: asked only of the runs in `asked` (the compare read says which
 * have any); the others have none. Undefined while loading, with the error if one failed.
 */
export function useLoadResults(runIds: string[], asked: readonly string[]) {
  const queries = useQueries({
    queries: runIds.map((runId) => ({
      queryKey: ['load-results', runId],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        meshbench.runs.results(runId, {}, { signal }),
      enabled: asked.includes(runId),
    })),
  });
  return queries.map((q, i): StoredLoadResult[] | undefined =>
    asked.includes(runIds[i] as string) ? q.data : [],
  );
}

/**
 * Points per line of a compared timeline: a chart is half the page wide and up to four runs
 * share it, so fewer than the run page's thousand draw the same picture.
 */
export const COMPARE_TIMELINE_POINTS = 400;

/**
 * Per run, its timeline: asked only of the runs in `asked` (the compare read says which have
 * one); null for the others and for one that failed, undefined while loading.
 */
export function useTimelines(runIds: string[], asked: readonly string[]) {
  const queries = useQueries({
    queries: runIds.map((runId) => ({
      queryKey: ['timeline', runId, COMPARE_TIMELINE_POINTS],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        meshbench.runs.timeline(runId, { points: COMPARE_TIMELINE_POINTS }, { signal }),
      enabled: asked.includes(runId),
    })),
  });
  return {
    timelines: queries.map((q, i): Timeline | null | undefined =>
      !asked.includes(runIds[i] as string) || q.isError ? null : q.data,
    ),
    error: queries.find((q) => q.isError)?.error,
  };
}
