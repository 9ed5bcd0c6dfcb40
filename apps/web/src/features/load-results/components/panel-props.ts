// What every load-result panel takes, and how it settles the slice it draws: along
// connections at one rate, or along the rate achieved at one connection count.
import { useMemo } from 'react';
import { formatCount } from '../../../charts/prepare/format.ts';
import {
  asRuns,
  formatRps,
  type LoadAxis,
  type LoadResultsInput,
  type LoadResultsRun,
  type LoadSlice,
  settleSlice,
} from '../../../charts/prepare/load-results.ts';

export interface LoadPanelProps {
  /** One run's results, or several runs ([{label, color, results}]) to overlay. */
  data: LoadResultsInput;
  /** What the chart runs along (default: connections). */
  axis?: LoadAxis | undefined;
  /**
   * The group drawn: a rate group's key along connections (see rateGroups), a connections
   * group's key along the rate (see connectionsGroups); omitted: the fullest sweep.
   */
  sliceKey?: string | null | undefined;
  /** The percentile drawn (default P90, as the Istio guide leads with). */
  percentile?: number | undefined;
}

export function useLoadRuns(
  data: LoadResultsInput,
  axis: LoadAxis = 'connections',
  sliceKey: string | null | undefined = null,
): { runs: LoadResultsRun[]; slice: LoadSlice; sliceLabel: string; overlay: boolean } {
  return useMemo(() => {
    const runs = asRuns(data);
    const { slice, label } = settleSlice(runs, axis, sliceKey);
    return { runs, slice, sliceLabel: label, overlay: runs.length > 1 };
  }, [data, axis, sliceKey]);
}

export const connectionsLabel = (x: number) => `${formatCount(x)} connection${x === 1 ? '' : 's'}`;
/** Grouped as every count is (1,250,000, not 1250000). */
export const connectionsTick = (x: number) => formatCount(x);
export const rpsLabel = (x: number) => `${formatRps(x)} RPS`;

/** How a chart along `axis` names its x axis and writes its values. */
export function xAxisOf(axis: LoadAxis) {
  return axis === 'connections'
    ? { xLabel: 'concurrent connections', formatX: connectionsLabel, formatXTick: connectionsTick }
    : { xLabel: 'requests per second achieved', formatX: rpsLabel, formatXTick: formatRps };
}

/** "At 1,000 RPS" along connections, "At 16 connections" along the rate. */
export const atSlice = (sliceLabel: string) => `At ${sliceLabel}`;
