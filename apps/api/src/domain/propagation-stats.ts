// Exact statistics of a change's propagation: nearest-rank percentiles, the share within
// a bound, histograms on linear or log bins, and the convergence curve (CDF).
import type { CdfPoint, HistogramBin, HistogramScale, PercentileValue } from '@meshbench/schema';
import { nearestRank } from './nearest-rank.ts';
import { blockOfBound, blockOfRank, type SortedLatencies } from './sorted-latencies.ts';

const US_PER_MS = 1000;
const SAMPLED_CDF_MIN_BLOCKS = 64;
const toMs = (us: number) => us / US_PER_MS;

export interface HistogramRange {
  fromUs: number;
  toUs: number;
}

/** Bin edges in microseconds; bins are [edge_i, edge_i+1), the last one closed. */
export function histogramEdges(
  minUs: number,
  maxUs: number,
  bins: number,
  scale: HistogramScale,
  /** Log scale: the smallest positive latency, when the minimum is not positive. */
  positiveMinUs?: number,
): number[] {
  if (maxUs <= minUs) return [minUs, maxUs];
  if (scale === 'linear' || maxUs <= 0) {
    const width = (maxUs - minUs) / bins;
    return Array.from({ length: bins + 1 }, (_, i) => (i === bins ? maxUs : minUs + i * width));
  }
  // Log bins need a positive start. Skewed (<= 0) latencies get a bin of their own in front,
  // from the minimum to the smallest positive edge, so they stay visible and counted.
  // Without a known smallest positive latency, 1 us: below any real one.
  const positiveStart = minUs > 0 ? minUs : Math.min(positiveMinUs ?? 1, maxUs);
  const logBins = minUs > 0 ? bins : Math.max(1, bins - 1);
  const ratio = (maxUs / positiveStart) ** (1 / logBins);
  const edges = Array.from({ length: logBins + 1 }, (_, i) =>
    i === logBins ? maxUs : positiveStart * ratio ** i,
  );
  return minUs > 0 ? edges : [minUs, ...edges];
}

/** The ranks and bounds a summary needs, so the caller can load just those blocks. */
export interface SummaryPlan {
  ranks: number[];
  bounds: { x: number; strict: boolean }[];
}

export function blocksNeeded(plan: SummaryPlan, firsts: Float64Array, blockSize: number): number[] {
  const needed = new Set<number>();
  for (const r of plan.ranks) needed.add(blockOfRank(r, blockSize));
  for (const { x, strict } of plan.bounds) {
    const no = blockOfBound(firsts, x, strict);
    if (no >= 0) needed.add(no);
  }
  return [...needed].sort((a, b) => a - b);
}

export interface SummaryRequest {
  percentiles: readonly number[];
  withinMs: number;
  bins: number;
  scale: HistogramScale;
  /** Optional histogram range; values outside are counted as under/overflow. */
  fromMs?: number | undefined;
  toMs?: number | undefined;
  /** Points on the convergence curve. */
  cdfPoints?: number;
  /** Log scale over skewed (<= 0) latencies: where the log bins start (the smallest positive). */
  logStartUs?: number | undefined;
}

export interface SummaryInput {
  n: number;
  minUs: number | null;
  maxUs: number | null;
  /** Denominator of fractions: expected proxies when declared, else n. */
  denominator: number;
}

function cdfRanks(n: number, firsts: Float64Array, blockSize: number, points: number): number[] {
  if (n === 0) return [];
  // With enough blocks, sample block starts: exact points of the curve whose values are
  // already in `firsts`, so no block is loaded for the curve (64 blocks: 65,536 proxies).
  if (firsts.length >= Math.min(points, SAMPLED_CDF_MIN_BLOCKS)) {
    const count = Math.min(points, firsts.length);
    const step = firsts.length / count;
    const ranks = Array.from({ length: count }, (_, i) => Math.floor(i * step) * blockSize + 1);
    ranks.push(n);
    return [...new Set(ranks)];
  }
  const ranks = Array.from({ length: points }, (_, i) => nearestRank(((i + 1) / points) * 100, n));
  return [...new Set([1, ...ranks])];
}

export function planSummary(
  req: SummaryRequest,
  input: SummaryInput,
  firsts: Float64Array,
  blockSize: number,
): SummaryPlan {
  if (input.n === 0 || input.minUs === null || input.maxUs === null)
    return { ranks: [], bounds: [] };
  const ranks = req.percentiles.map((p) => nearestRank(p, input.n));
  const edges = histogramEdges(
    req.fromMs !== undefined ? req.fromMs * US_PER_MS : input.minUs,
    req.toMs !== undefined ? req.toMs * US_PER_MS : input.maxUs,
    req.bins,
    req.scale,
    req.logStartUs,
  );
  const cdf = cdfRanks(input.n, firsts, blockSize, req.cdfPoints ?? 200);
  const sampled = firsts.length >= Math.min(req.cdfPoints ?? 200, SAMPLED_CDF_MIN_BLOCKS);
  return {
    // A sampled curve's points are block starts, read from `firsts`, but for its last (rank n):
    // that block is loaded for it, as a histogram range may end before the largest value.
    ranks: sampled ? [...ranks, input.n] : [...ranks, ...cdf],
    bounds: [
      { x: req.withinMs * US_PER_MS, strict: false },
      ...edges.map((x) => ({ x, strict: true })),
      { x: edges[edges.length - 1] as number, strict: false },
    ],
  };
}

export interface SummaryStats {
  percentiles: PercentileValue[];
  withinCount: number;
  withinFraction: number | null;
  histogram: HistogramBin[];
  underflow: number;
  overflow: number;
  cdf: CdfPoint[];
}

export function computeSummary(
  req: SummaryRequest,
  input: SummaryInput,
  sample: SortedLatencies,
): SummaryStats {
  const { n } = input;
  if (n === 0 || input.minUs === null || input.maxUs === null) {
    return {
      percentiles: [],
      withinCount: 0,
      withinFraction: input.denominator > 0 ? 0 : null,
      histogram: [],
      underflow: 0,
      overflow: 0,
      cdf: [],
    };
  }
  // Nearest rank over every first application: exact, whatever the bins.
  const percentiles = req.percentiles.map((p) => ({
    p,
    ms: toMs(sample.at(nearestRank(p, n))),
    exact: true,
    method: 'raw' as const,
  }));
  const withinCount = sample.countBelow(req.withinMs * US_PER_MS, false);
  const edges = histogramEdges(
    req.fromMs !== undefined ? req.fromMs * US_PER_MS : input.minUs,
    req.toMs !== undefined ? req.toMs * US_PER_MS : input.maxUs,
    req.bins,
    req.scale,
    req.logStartUs,
  );
  const below = edges.map((x) => sample.countBelow(x, true));
  const lastEdge = edges[edges.length - 1] as number;
  const atOrBelowLast = sample.countBelow(lastEdge, false);
  const histogram: HistogramBin[] = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const upper = i + 2 === edges.length ? atOrBelowLast : (below[i + 1] as number);
    histogram.push({
      fromMs: toMs(edges[i] as number),
      toMs: toMs(edges[i + 1] as number),
      count: upper - (below[i] as number),
    });
  }
  const cdf = cdfRanks(n, sample.firsts, sample.blockSize, req.cdfPoints ?? 200).map((r) => ({
    ms: toMs(sample.at(r)),
    fraction: r / input.denominator,
  }));
  return {
    percentiles,
    withinCount,
    withinFraction: input.denominator > 0 ? withinCount / input.denominator : null,
    histogram,
    underflow: below[0] as number,
    overflow: n - atOrBelowLast,
    cdf,
  };
}
