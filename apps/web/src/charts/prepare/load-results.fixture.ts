// Load results for the load-result tests: a point with nothing measured but what a case sets,
// and a run of points, so that each case states only what it is about.
import type { StoredLoadResult } from '@meshbench/schema';
import type { LoadResultsRun } from './load-results.ts';

let nextId = 1;
/** A load result with nothing measured but what the case sets. */
export function point(
  mode: string,
  connections: number | null,
  set: Partial<StoredLoadResult> & { p50?: number; p90?: number; p99?: number } = {},
): StoredLoadResult {
  const { p50, p90, p99, ...rest } = set;
  const percentiles = [
    ...(p50 === undefined ? [] : [{ p: 50, ms: p50 }]),
    ...(p90 === undefined ? [] : [{ p: 90, ms: p90 }]),
    ...(p99 === undefined ? [] : [{ p: 99, ms: p99 }]),
  ];
  return {
    id: nextId++,
    format: 'fortio',
    mode,
    connections,
    targetRps: 1000,
    achievedRps: 1000,
    durationMs: 30_000,
    requests: 30_000,
    errors: 0,
    errorsByCode: {},
    percentiles,
    histogram: null,
    minMs: null,
    meanMs: null,
    maxMs: null,
    stdDevMs: null,
    clientCpuCores: null,
    serverCpuCores: null,
    clientMemMiB: null,
    serverMemMiB: null,
    clientCpuCoresMax: null,
    serverCpuCoresMax: null,
    clientMemMiBMax: null,
    serverMemMiBMax: null,
    labels: {},
    thresholds: null,
    startedAt: null,
    generator: null,
    merged: null,
    ...rest,
  };
}

export const run = (label: string, color: string, results: StoredLoadResult[]): LoadResultsRun => ({
  label,
  color,
  results,
});
