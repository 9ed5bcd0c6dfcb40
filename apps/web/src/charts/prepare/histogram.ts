// The latency histogram: which range to ask the API for, and the bars, ticks and notes
// the chart draws. The linear view shows the body; the log view shows the whole tail.
import type { HistogramBin, HistogramScale, PercentileValue, Propagation } from '@meshbench/schema';
import { linearTicks, logTicks, niceCeil } from './axis.ts';
import { formatDurationMs, formatDurationRange } from './duration.ts';
import { formatCount, formatDuration } from './format.ts';

export const HISTOGRAM_BINS = 60;

/** The range rule is the API's (`?range=auto`): the stage-gap panel asks with it. */
export { type HistogramRange, LONG_TAIL_RATIO, linearHistogramRange } from '@meshbench/schema';

const percentileMs = (percentiles: PercentileValue[], p: number) =>
  percentiles.find((x) => x.p === p)?.ms;

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
