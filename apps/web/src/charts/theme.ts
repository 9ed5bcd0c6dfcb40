// The look every chart shares: grid, axis ticks and labels, reference marks, tooltip cursors
// and margins, so that a chart states only what it draws.
import type { XAxisProps } from 'recharts';

/** Grid lines of the panel charts (histograms, curves, bars). */
export const GRID_STROKE = '#e6e8eb';
/** Grid lines of the timeline charts, lighter under their many lines. */
export const TIMELINE_GRID_STROKE = '#eef0f3';

/** Numeric axis ticks. */
export const AXIS_TICK = { fontSize: 12, fill: '#4b5563' };
/** Category axis ticks (names: causes, runs), darker since they are read, not scanned. */
export const CATEGORY_TICK = { fontSize: 12, fill: '#1f2933' };
/** The timeline charts' ticks, smaller to fit their stacked rows. */
export const TIMELINE_TICK = { fontSize: 11 };

/** What an axis measures, under (or at the right end of) the axis. */
export function axisLabel(
  value: string,
  position: 'insideBottom' | 'insideBottomRight' = 'insideBottom',
): XAxisProps['label'] {
  return { value, position, offset: -12, fontSize: 12, fill: '#6b7280' };
}

/** A reference mark on the time axis (the "within" threshold). */
export const MARKER_LINE = { stroke: '#9ca3af', strokeDasharray: '4 3' };
export function markerLabel(value: string) {
  return { value, position: 'insideBottomRight' as const, fontSize: 12, fill: '#4b5563' };
}

/** A marked percentile on the histogram: solid and darker than the threshold's dashes. */
export const PERCENTILE_LINE = { stroke: '#374151', strokeWidth: 1 };
export function percentileLabel(value: string) {
  return { value, position: 'top' as const, fontSize: 11, fill: '#374151' };
}

/** The band a bar chart's tooltip draws behind the hovered bar. */
export const BAR_CURSOR = { fill: 'rgba(0,0,0,0.05)' };
/** Lighter, for stacked bars whose colours must stay readable under it. */
export const STACKED_BAR_CURSOR = { fill: 'rgba(0,0,0,0.04)' };

/** Room around a panel chart: the right for the last tick, the bottom for the axis label. */
export const PANEL_MARGIN = { top: 8, right: 28, bottom: 20, left: 4 };
/** Room around the load-result charts. */
export const SERIES_MARGIN = { top: 10, right: 18, bottom: 20, left: 4 };
/** Room around a timeline chart (its axes carry no labels). */
export const TIMELINE_MARGIN = { top: 6, right: 16, bottom: 0, left: 0 };

export const percentTick = (v: number) => `${v} %`;
