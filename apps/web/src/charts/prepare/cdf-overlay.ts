// Several runs' convergence curves on one chart: one time axis that fits them all, and the
// curves merged into rows (one per time any curve steps), each run's share held between
// its own steps, so a tooltip reads every run at the same time.
import type { CdfPoint, HistogramScale } from '@meshbench/schema';
import { linearTicks, logTicks } from './axis.ts';
import { PERCENT_TICKS, prepareCdf } from './cdf.ts';
import { formatDuration } from './format.ts';

/** A row of the merged chart data: the time and, per series key, the share updated (0-100). */
export type OverlayRow = { ms: number } & Record<string, number>;

export interface PreparedCdfOverlay {
  scale: HistogramScale;
  rows: OverlayRow[];
  /** The series drawn, in the order given; a run without applications is left out. */
  keys: string[];
  finalPercent: Record<string, number>;
  domain: [number, number];
  ticks: number[];
  percentTicks: number[];
  marker: { ms: number; label: string } | null;
}

const MARKER_MARGIN = 0.05;

function markerAt(
  ms: number | undefined,
  [start, end]: [number, number],
  scale: HistogramScale,
): PreparedCdfOverlay['marker'] {
  if (ms === undefined) return null;
  const at =
    scale === 'log'
      ? ms > 0
        ? Math.log(ms / start) / Math.log(end / start)
        : -1
      : (ms - start) / (end - start);
  return at >= MARKER_MARGIN && at <= 1 - MARKER_MARGIN ? { ms, label: formatDuration(ms) } : null;
}

/**
 * Each curve is prepared as the single-run chart prepares it (same start rule, same fold of
 * skewed applications on a log axis); the axis then spans the earliest start to the latest
 * end, and every curve starts at that start and holds its final share to that end.
 */
export function prepareCdfOverlay(
  series: { key: string; cdf: CdfPoint[] }[],
  scale: HistogramScale,
  withinMs?: number,
): PreparedCdfOverlay | null {
  const prepared = series.flatMap((s) => {
    const c = prepareCdf(s.cdf, scale);
    return c ? [{ key: s.key, c }] : [];
  });
  if (prepared.length === 0) return null;
  const start = Math.min(...prepared.map((p) => p.c.domain[0]));
  const end = Math.max(...prepared.map((p) => p.c.domain[1]));
  const lines = prepared.map(({ key, c }) => {
    const points = c.points.map((p) => ({ ...p }));
    (points[0] as { ms: number }).ms = start;
    const last = points[points.length - 1] as { ms: number; percent: number };
    if (last.ms < end) points.push({ ms: end, percent: c.finalPercent });
    return { key, points, finalPercent: c.finalPercent };
  });
  // Merge: every distinct time, in order; a curve holds its latest share up to the next step.
  const times = [...new Set(lines.flatMap((l) => l.points.map((p) => p.ms)))].sort((a, b) => a - b);
  const cursor = lines.map(() => 0);
  const rows: OverlayRow[] = times.map((ms) => {
    const row = { ms } as OverlayRow;
    lines.forEach((line, i) => {
      let at = cursor[i] as number;
      while (at + 1 < line.points.length && (line.points[at + 1] as { ms: number }).ms <= ms) at++;
      cursor[i] = at;
      row[line.key] = (line.points[at] as { percent: number }).percent;
    });
    return row;
  });
  const domain: [number, number] = [start, end];
  return {
    scale,
    rows,
    keys: lines.map((l) => l.key),
    finalPercent: Object.fromEntries(lines.map((l) => [l.key, l.finalPercent])),
    domain,
    ticks: scale === 'log' ? logTicks(start, end) : linearTicks(start, end),
    percentTicks: PERCENT_TICKS,
    marker: markerAt(withinMs, domain, scale),
  };
}
