// The per-proxy gap between two stages of a change, as the gap panel asks for it.
import type { StageCount } from '@meshbench/schema';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { meshbench } from '../../../api/client.ts';
import { HISTOGRAM_BINS, linearHistogramRange } from '../../../charts/prepare/histogram.ts';

/** The percentiles the gap panel shows. */
export const GAP_PERCENTILES = [50, 90, 99] as const;

/**
 * The two stages a gap is shown between: serving minus received where the change has both
 * (received is not serving), else its first and last stages; null with fewer than two.
 */
export function gapStages(stages: readonly StageCount[]): { from: string; to: string } | null {
  if (stages.length < 2) return null;
  const has = (s: string) => stages.some((x) => x.stage === s);
  const from = has('received') ? 'received' : (stages[0] as StageCount).stage;
  const to = has('serving') ? 'serving' : (stages[stages.length - 1] as StageCount).stage;
  return from === to ? null : { from, to };
}

export const stageGapQuery = (
  runId: string,
  changeId: string,
  from: string,
  to: string,
  range: { fromMs: number; toMs: number } | null = null,
) =>
  queryOptions({
    queryKey: ['stage-gap', runId, changeId, from, to, range],
    queryFn: ({ signal }) =>
      meshbench.runs.stageGap(
        runId,
        changeId,
        {
          from,
          to,
          percentiles: GAP_PERCENTILES.join(','),
          bins: HISTOGRAM_BINS,
          fromMs: range?.fromMs,
          toMs: range?.toMs,
        },
        { signal },
      ),
  });

/**
 * The gap's numbers, then its histogram over the body of the distribution (0 to P99
 * rounded up, as the latency histogram's linear view): a few slow proxies would otherwise
 * squeeze every other into the first bar.
 */
export function useStageGap(runId: string, changeId: string, from: string, to: string) {
  const summary = useQuery(stageGapQuery(runId, changeId, from, to));
  const range = summary.data ? linearHistogramRange(summary.data.percentiles) : null;
  const histogram = useQuery({
    ...stageGapQuery(runId, changeId, from, to, range),
    enabled: range !== null,
  });
  return { summary, histogram };
}
