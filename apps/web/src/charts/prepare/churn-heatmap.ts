// A churn run's heatmap, prepared: one row per change, one column per shared bin of time
// since change, each cell's colour from its count. The colour scale is logarithmic in the
// count (log(1 + count) over log(1 + max)): a tail of a few proxies stays visible beside
// bins of thousands, and an empty cell is no colour at all.
import type { ChurnHeatmap } from '@meshbench/schema';
import { durationTickFormatter, formatDurationRange } from './duration.ts';
import { formatCount } from './format.ts';

/** Light to dark blue: the stops of the colour scale, at 0, 1/4, 1/2, 3/4 and 1. */
export const HEAT_STOPS = ['#deebf7', '#9ecae1', '#4292c6', '#2171b5', '#08306b'] as const;
export const EMPTY_CELL = 'transparent';

const hex = (c: string) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16));
const toHex = (rgb: number[]) =>
  `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

/** Where a count sits on the scale, 0..1 (0 for nothing, 1 for the largest cell). */
export function heatLevel(count: number, maxCount: number): number {
  if (count <= 0 || maxCount <= 0) return 0;
  return Math.log1p(count) / Math.log1p(maxCount);
}

/** The colour of a cell: none when empty, else the scale at its level. */
export function heatColor(count: number, maxCount: number): string {
  if (count <= 0) return EMPTY_CELL;
  const t = heatLevel(count, maxCount) * (HEAT_STOPS.length - 1);
  const i = Math.min(HEAT_STOPS.length - 2, Math.floor(t));
  const a = hex(HEAT_STOPS[i] as string);
  const b = hex(HEAT_STOPS[i + 1] as string);
  const f = t - i;
  return toHex(a.map((v, k) => v + ((b[k] as number) - v) * f));
}

export interface HeatmapColumn {
  fromMs: number;
  toMs: number;
  /** "120.0 ms – 240.0 ms", the last bin closed. */
  label: string;
}

export interface HeatmapCell {
  bin: number;
  count: number;
  color: string;
  /** What a tooltip or a screen reader says: the change, the bin and the count. */
  title: string;
}

export interface HeatmapRow {
  changeId: string;
  cells: HeatmapCell[];
  total: number;
}

export interface PreparedHeatmap {
  columns: HeatmapColumn[];
  rows: HeatmapRow[];
  maxCount: number;
  /** Column positions (edge index) with their label, for the time axis under the grid. */
  ticks: { edge: number; label: string }[];
  /** Counts along the colour scale, for the legend. */
  legend: { count: number; color: string }[];
}

/** About this many labelled edges under the grid. */
const TICKS = 6;

export function prepareHeatmap(h: ChurnHeatmap): PreparedHeatmap {
  const columns = h.edgesMs.slice(1).map((toMs, i) => {
    const fromMs = h.edgesMs[i] as number;
    const last = i + 2 === h.edgesMs.length;
    return {
      fromMs,
      toMs,
      label: `${formatDurationRange(fromMs, toMs)}${last ? ' (closed)' : ''}`,
    };
  });
  const rows = h.rows.map((r) => ({
    changeId: r.changeId,
    total: r.counts.reduce((s, c) => s + c, 0),
    cells: r.counts.map((count, bin) => ({
      bin,
      count,
      color: heatColor(count, h.maxCount),
      title: `${r.changeId}: ${formatCount(count)} ${count === 1 ? 'proxy' : 'proxies'} at ${columns[bin]?.label ?? ''}`,
    })),
  }));
  const edges = h.edgesMs.length;
  const step = Math.max(1, Math.ceil((edges - 1) / TICKS));
  const ticks: PreparedHeatmap['ticks'] = [];
  // The axis in one unit, its zero "0 s" (not "0.000 ms"): the ticks' own formatter.
  const tick = durationTickFormatter(h.edgesMs);
  for (let e = 0; e < edges; e += step) ticks.push({ edge: e, label: tick(h.edgesMs[e] ?? 0) });
  if (edges > 1 && ticks[ticks.length - 1]?.edge !== edges - 1)
    ticks.push({ edge: edges - 1, label: tick(h.edgesMs[edges - 1] ?? 0) });
  return { columns, rows, maxCount: h.maxCount, ticks, legend: heatLegend(h.maxCount) };
}

/** 1, then powers of ten up to the largest count, then the largest: where the scale reads. */
export function heatLegend(maxCount: number): { count: number; color: string }[] {
  if (maxCount <= 0) return [];
  const counts = [1];
  for (let c = 10; c < maxCount; c *= 10) counts.push(c);
  if (maxCount > 1) counts.push(maxCount);
  return counts.map((count) => ({ count, color: heatColor(count, maxCount) }));
}
