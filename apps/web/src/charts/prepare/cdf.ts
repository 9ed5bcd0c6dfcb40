// The convergence curve: the share of expected proxies that applied a change by each time,
// as the points of a step line on a linear or log time axis.
import type { CdfPoint, HistogramScale } from '@meshbench/schema';
import { decadeFloor, linearTicks, logTicks, niceCeil } from './axis.ts';
import { formatDuration } from './format.ts';

export interface ConvergencePoint {
  ms: number;
  /** 0-100. */
  percent: number;
}

export interface PreparedCdf {
  scale: HistogramScale;
  points: ConvergencePoint[];
  domain: [number, number];
  ticks: number[];
  /** The y axis always spans 0-100 %, so a run that never converges looks it. */
  percentTicks: number[];
  /** The share reached at the end, 0-100. */
  finalPercent: number;
  /** A vertical line at the "within" threshold (1 s), when it falls inside the axis. */
  marker: { ms: number; label: string } | null;
}

export const PERCENT_TICKS = [0, 20, 40, 60, 80, 100];

/** A marker squeezed against an axis end only collides with the tick labels. */
const MARKER_MARGIN = 0.05;

function clearOfEdges(ms: number, start: number, end: number, scale: HistogramScale): boolean {
  const at =
    scale === 'log'
      ? ms > 0
        ? Math.log(ms / start) / Math.log(end / start)
        : -1
      : (ms - start) / (end - start);
  return at >= MARKER_MARGIN && at <= 1 - MARKER_MARGIN;
}

/**
 * The API's CDF points say "fraction reached by ms". Drawn as a step that holds each value
 * until the next point, from the start of the axis (0 %) to its end (the final share).
 * On a log axis, applications at or before the change (clock skew) fold into the first point.
 */
export function prepareCdf(
  cdf: CdfPoint[],
  scale: HistogramScale,
  withinMs?: number,
): PreparedCdf | null {
  const last = cdf[cdf.length - 1];
  if (!last) return null;
  const finalPercent = last.fraction * 100;
  let start: number;
  let shown: CdfPoint[];
  let startPercent = 0;
  if (scale === 'log') {
    shown = cdf.filter((c) => c.ms > 0);
    const first = shown[0];
    if (!first) return null;
    start = decadeFloor(first.ms);
    const folded = cdf.filter((c) => c.ms <= 0).pop();
    startPercent = folded ? folded.fraction * 100 : 0;
  } else {
    shown = cdf;
    start = Math.min(0, (cdf[0] as CdfPoint).ms);
  }
  const end = Math.max(niceCeil(last.ms), start + 1);
  const points: ConvergencePoint[] = [{ ms: start, percent: startPercent }];
  for (const c of shown) points.push({ ms: c.ms, percent: c.fraction * 100 });
  if (last.ms < end) points.push({ ms: end, percent: finalPercent });
  return {
    scale,
    points,
    domain: [start, end],
    ticks: scale === 'log' ? logTicks(start, end) : linearTicks(start, end),
    percentTicks: PERCENT_TICKS,
    finalPercent,
    marker:
      withinMs !== undefined && clearOfEdges(withinMs, start, end, scale)
        ? { ms: withinMs, label: formatDuration(withinMs) }
        : null,
  };
}
