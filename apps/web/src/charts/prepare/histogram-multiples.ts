// Histograms as small multiples: one per run, asked for over one range with the same bins,
// and drawn on the same x and y axes, so bar heights compare across runs.
import type { HistogramScale, Propagation } from '@meshbench/schema';
import { decadeFloor, linearTicks, logTicks, niceCeil } from './axis.ts';
import { HISTOGRAM_BINS, linearHistogramRange, type PreparedHistogram } from './histogram.ts';

export interface HistogramRequest {
  scale: HistogramScale;
  bins: number;
  fromMs: number;
  toMs: number;
}

/**
 * One histogram request that fits every run. Linear: 0 to the largest of the runs' body
 * ranges (the single-run rule, so each run's body is on the chart). Log: the decade of the
 * smallest positive latency of any run to the largest latency rounded up.
 * Null when no run has anything to draw.
 */
export function commonHistogramRequest(
  summaries: Pick<Propagation, 'count' | 'percentiles' | 'cdf' | 'maxMs'>[],
  scale: HistogramScale,
): HistogramRequest | null {
  const withData = summaries.filter((s) => s.count > 0);
  if (scale === 'linear') {
    const ends = withData.flatMap((s) => {
      const r = linearHistogramRange(s.percentiles);
      return r ? [r.toMs] : [];
    });
    if (ends.length === 0) return null;
    return { scale, bins: HISTOGRAM_BINS, fromMs: 0, toMs: Math.max(...ends) };
  }
  const firsts = withData.flatMap((s) => {
    const first = s.cdf.find((c) => c.ms > 0);
    return first ? [first.ms] : [];
  });
  const maxes = withData.flatMap((s) => (s.maxMs !== null && s.maxMs > 0 ? [s.maxMs] : []));
  if (firsts.length === 0 || maxes.length === 0) return null;
  const fromMs = decadeFloor(Math.min(...firsts));
  const toMs = Math.max(niceCeil(Math.max(...maxes)), fromMs * 10);
  return { scale, bins: HISTOGRAM_BINS, fromMs, toMs };
}

/**
 * Puts prepared histograms on shared axes: x from the smallest start to the largest end,
 * y from 0 to the tallest bar of any of them, rounded up. A missing histogram stays null.
 */
export function shareHistogramAxes(
  histograms: (PreparedHistogram | null)[],
): (PreparedHistogram | null)[] {
  const present = histograms.filter((h): h is PreparedHistogram => h !== null);
  const first = present[0];
  if (!first) return histograms;
  const from = Math.min(...present.map((h) => h.domain[0]));
  const to = Math.max(...present.map((h) => h.domain[1]));
  const top = Math.max(niceCeil(Math.max(...present.map((h) => h.maxCount))), 1);
  const domain: [number, number] = [from, to];
  const ticks = first.scale === 'log' ? logTicks(from, to) : linearTicks(from, to);
  const countTicks = linearTicks(0, top, 4);
  return histograms.map((h) =>
    h ? { ...h, domain, ticks, countDomain: [0, top], countTicks } : null,
  );
}
