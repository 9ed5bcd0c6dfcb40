// The latency histogram: which range to ask the API for, and the bars, ticks and notes
// the chart draws. The linear view shows the body; the log view shows the whole tail.
import type { HistogramBin, HistogramScale, PercentileValue, Propagation } from '@meshbench/schema';
import { decadeFloor, linearTicks, logTicks, niceCeil } from './axis.ts';
import { formatDurationMs, formatDurationRange } from './duration.ts';
import { formatCount, formatDuration } from './format.ts';

export const HISTOGRAM_BINS = 60;

/**
 * A tail is long when P99 is this many times P90: stretching the linear axis to P99 would
 * then squeeze the body into one bar (the Consul benchmark: P90 0.4 s, P99 minutes).
 */
export const LONG_TAIL_RATIO = 4;

export interface HistogramRange {
  fromMs?: number;
  toMs?: number;
}

const percentileMs = (percentiles: PercentileValue[], p: number) =>
  percentiles.find((x) => x.p === p)?.ms;

/**
 * The linear view spans 0 to P99 rounded up. With a long tail it stops instead at the
 * largest percentile (up to P99) that is still within LONG_TAIL_RATIO x P90, rounded up;
 * what lies beyond is counted as overflow and shown in the log view. It reaches at least
 * `withinMs`, so that the "within" line is on the chart.
 * Null when there is nothing to draw (no observations, or all before the change).
 */
export function linearHistogramRange(
  percentiles: PercentileValue[],
  withinMs?: number,
): Required<HistogramRange> | null {
  const p99 = percentileMs(percentiles, 99) ?? Math.max(...percentiles.map((x) => x.ms));
  if (!Number.isFinite(p99)) return null;
  let end = p99;
  const p90 = percentileMs(percentiles, 90);
  if (p90 !== undefined && p90 > 0 && p99 > LONG_TAIL_RATIO * p90) {
    const body = percentiles.filter((x) => x.p <= 99 && x.ms <= LONG_TAIL_RATIO * p90);
    end = Math.max(p90, ...body.map((x) => x.ms));
  }
  if (withinMs !== undefined && end > 0 && withinMs > end) end = withinMs;
  const toMs = niceCeil(end);
  return toMs > 0 ? { fromMs: 0, toMs } : null;
}

/**
 * Where the log view starts. With every latency positive the API starts at the minimum;
 * otherwise its default floor (0.001 ms) would spend half the bins on empty decades, so
 * start at the decade of the smallest positive latency the CDF knows.
 */
export function logHistogramRange(minMs: number | null, cdf: Propagation['cdf']): HistogramRange {
  if (minMs === null || minMs > 0) return {};
  const positive = cdf.find((c) => c.ms > 0);
  return positive ? { fromMs: decadeFloor(positive.ms) } : {};
}

export interface HistogramBar {
  fromMs: number;
  toMs: number;
  /** Where the bar sits on the x axis: the bin's middle on the chart's own scale. */
  midMs: number;
  count: number;
  label: string;
}

export interface PreparedHistogram {
  scale: HistogramScale;
  bars: HistogramBar[];
  domain: [number, number];
  ticks: number[];
  maxCount: number;
  /** The count axis: 0 to the tallest bar rounded up, with round ticks. */
  countDomain: [number, number];
  countTicks: number[];
  /** "3 below 10 ms not shown", or null when everything is on the chart. */
  belowNote: string | null;
  aboveNote: string | null;
  /** Vertical lines: the marked percentiles and the "within" threshold, those on the axis. */
  markers: HistogramMarker[];
  /** "P99 at 175.5 s, beyond the axis", or null when every marker is drawn. */
  markersNote: string | null;
}

export interface HistogramMarker {
  ms: number;
  /** "P50", "≤ 1,000 ms". */
  label: string;
  kind: 'percentile' | 'within';
}

/** What to mark: percentiles (found in the response's own list) and the within threshold. */
export interface HistogramMarks {
  percentiles: readonly number[];
  withinMs: number | null;
}

/**
 * The lines to draw and a note for those off the axis (beyond it, or at or below 0 on a log
 * axis). A percentile the response does not hold is left out.
 */
export function histogramMarkers(
  percentiles: PercentileValue[],
  marks: HistogramMarks,
  domain: [number, number],
  scale: HistogramScale,
): { markers: HistogramMarker[]; note: string | null } {
  const all: HistogramMarker[] = [];
  for (const p of marks.percentiles) {
    const ms = percentileMs(percentiles, p);
    if (ms !== undefined) all.push({ ms, label: `P${p}`, kind: 'percentile' });
  }
  if (marks.withinMs !== null) {
    all.push({ ms: marks.withinMs, label: `≤ ${formatDuration(marks.withinMs)}`, kind: 'within' });
  }
  const on = (m: HistogramMarker) =>
    m.ms >= domain[0] && m.ms <= domain[1] && (scale === 'linear' || m.ms > 0);
  const off = all.filter((m) => !on(m));
  return {
    markers: all.filter(on),
    note:
      off.length > 0
        ? `${off.map((m) => (m.kind === 'within' ? `the ${m.label} line` : `${m.label} (${formatDurationMs(m.ms)})`)).join(', ')} off the axis`
        : null,
  };
}

export function binLabel(bin: Pick<HistogramBin, 'fromMs' | 'toMs'>): string {
  return formatDurationRange(bin.fromMs, bin.toMs);
}

/** Below a range that starts at 0 is before the change: probes whose clocks run behind. */
const belowWhat = (fromMs: number) =>
  fromMs === 0 ? 'before the change' : `below ${formatDuration(fromMs)}`;

export function prepareHistogram(
  p: Pick<Propagation, 'histogram' | 'underflow' | 'overflow' | 'scale'> &
    Partial<Pick<Propagation, 'percentiles'>>,
  marks: HistogramMarks = { percentiles: [], withinMs: null },
): PreparedHistogram | null {
  // A log axis cannot place a bin that starts at or below zero: count it as below range.
  const drawable = p.scale === 'log' ? p.histogram.filter((b) => b.fromMs > 0) : p.histogram;
  const first = drawable[0];
  const last = drawable[drawable.length - 1];
  if (!first || !last || !(last.toMs > first.fromMs)) return null;
  const hidden = p.histogram.length - drawable.length;
  const below = p.underflow + p.histogram.slice(0, hidden).reduce((sum, b) => sum + b.count, 0);
  const domain: [number, number] = [first.fromMs, last.toMs];
  const bars = drawable.map((b) => ({
    fromMs: b.fromMs,
    toMs: b.toMs,
    midMs: p.scale === 'log' ? Math.sqrt(b.fromMs * b.toMs) : (b.fromMs + b.toMs) / 2,
    count: b.count,
    label: binLabel(b),
  }));
  const marked = histogramMarkers(p.percentiles ?? [], marks, domain, p.scale);
  const maxCount = Math.max(...bars.map((b) => b.count));
  const countTop = Math.max(niceCeil(maxCount), 1);
  return {
    scale: p.scale,
    bars,
    domain,
    ticks: p.scale === 'log' ? logTicks(domain[0], domain[1]) : linearTicks(domain[0], domain[1]),
    maxCount,
    countDomain: [0, countTop],
    countTicks: linearTicks(0, countTop, 4),
    belowNote: below > 0 ? `${formatCount(below)} ${belowWhat(domain[0])} not shown` : null,
    aboveNote:
      p.overflow > 0
        ? `${formatCount(p.overflow)} above ${formatDuration(domain[1])} not shown`
        : null,
    markers: marked.markers,
    markersNote: marked.note,
  };
}
