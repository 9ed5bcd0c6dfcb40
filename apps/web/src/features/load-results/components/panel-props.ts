// What every load-result panel takes, and how it settles the rate it draws.
import { useMemo } from 'react';
import {
  asRuns,
  defaultRateKey,
  type LoadPercentile,
  type LoadResultsInput,
  type LoadResultsRun,
  rateGroups,
} from '../../../charts/prepare/load-results.ts';

export interface LoadPanelProps {
  /** One run's results, or several runs ([{label, color, results}]) to overlay. */
  data: LoadResultsInput;
  /** A rate group's key (see rateGroups); omitted: the rate holding the connections sweep. */
  rateKey?: string | null | undefined;
  /** P50, P90 or P99 (default P90, as the Istio guide leads with). */
  percentile?: LoadPercentile | undefined;
}

export function useLoadRuns(
  data: LoadResultsInput,
  rateKey: string | null | undefined,
): { runs: LoadResultsRun[]; rate: string | null; rateLabel: string; overlay: boolean } {
  return useMemo(() => {
    const runs = asRuns(data);
    const groups = rateGroups(runs);
    const rate = groups.some((g) => g.key === rateKey)
      ? (rateKey as string)
      : defaultRateKey(groups);
    const rateLabel = groups.find((g) => g.key === rate)?.label ?? 'no rate';
    return { runs, rate, rateLabel, overlay: runs.length > 1 };
  }, [data, rateKey]);
}

export const connectionsLabel = (x: number) => `${x} connection${x === 1 ? '' : 's'}`;
export const connectionsTick = (x: number) => String(x);
