// The live data of a comparison: each run and its changes, then per compared change each
// run's summary (with its log histogram: one request per run before anything is drawn), the
// linear histograms over one range for all when asked for, and, once the numbers are on
// screen, the tails (the slowest read); beside them the runs' load results and timelines.
import type { Change, HistogramScale, Propagation } from '@meshbench/schema';
import { keepPreviousData, queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { type PropagationParams, propagationQuery } from '../../../api/urls.ts';
import { HISTOGRAM_BINS } from '../../../charts/prepare/histogram.ts';
import { commonHistogramRequest } from '../../../charts/prepare/histogram-multiples.ts';
import { changesQuery, runQuery } from '../../runs/hooks/use-runs.ts';

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

export function useComparedRuns(ids: string[]) {
  const runs = useQueries({ queries: ids.map(runQuery) });
  const changes = useQueries({ queries: ids.map(changesQuery) });
  return { runs, changes };
}

export const compareSummaryQuery = (runId: string, changeId: string) =>
  queryOptions({
    queryKey: ['propagation', runId, changeId, COMPARE_SUMMARY_PARAMS],
    queryFn: ({ signal }) =>
      meshbench.runs.propagation(runId, changeId, propagationQuery(COMPARE_SUMMARY_PARAMS), {
        signal,
      }),
  });

/** Per run, the change compared (null: the run has none): the summaries. */
export function useSummaries(runIds: string[], changes: (Pick<Change, 'id'> | null)[]) {
  return useQueries({
    queries: runIds.map((runId, i) => {
      const changeId = changes[i]?.id ?? '';
      return { ...compareSummaryQuery(runId, changeId), enabled: changeId !== '' };
    }),
  });
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

/** Whether the runs (the first the baseline) can be compared: the API's one check. */
export function useComparability(runIds: string[]) {
  return useQuery({
    queryKey: ['comparability', runIds],
    queryFn: ({ signal }) =>
      meshbench.compare.comparability({ runs: runIds.join(',') }, { signal }),
  });
}

export function useLoadResults(runIds: string[]) {
  return useQueries({
    queries: runIds.map((runId) => ({
      queryKey: ['load-results', runId],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        meshbench.runs.results(runId, {}, { signal }),
    })),
  });
}

/**
 * Points per line of a compared timeline: a chart is half the page wide and up to four runs
 * share it, so fewer than the run page's thousand draw the same picture.
 */
export const COMPARE_TIMELINE_POINTS = 400;

export function useTimelines(runIds: string[]) {
  return useQueries({
    queries: runIds.map((runId) => ({
      queryKey: ['timeline', runId, COMPARE_TIMELINE_POINTS],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        meshbench.runs.timeline(runId, { points: COMPARE_TIMELINE_POINTS }, { signal }),
    })),
  });
}
