// Runs' timelines over one time axis (ms since each run's start): one line per run in its
// mesh's colour and dash, and a tooltip listing every run's value at the cursor.
import {
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from 'recharts';
import type { SeriesStyle } from './prepare/series-style.ts';
import { formatOffset, formatValue } from './prepare/timeline.ts';
import type { OverlayRow } from './prepare/timeline-overlay.ts';
import { TIMELINE_GRID_STROKE, TIMELINE_MARGIN, TIMELINE_TICK } from './theme.ts';
import { timeAxisProps } from './time-axis.ts';

export interface OverlayRunLine {
  key: string;
  label: string;
  style: SeriesStyle;
}

/** The y axis's width, the same in every overlay so that their time axes line up. */
const Y_AXIS_WIDTH = 64;

function OverlayTooltip({
  active,
  payload,
  lines,
  format,
}: Partial<TooltipContentProps<number, string>> & {
  lines: OverlayRunLine[];
  format: (key: string, v: number | null) => string;
}) {
  const row = payload?.[0]?.payload as OverlayRow | undefined;
  if (!active || !row) return null;
  return (
    <div className="chart-tooltip" data-testid="overlay-tooltip" data-t={row.t}>
      <div>
        <strong>{formatOffset(row.t)}</strong> after each run's start
      </div>
      {lines.map((l) => (
        <div key={l.key} style={{ color: l.style.color }} data-run-key={l.key}>
          {/* Two runs of one mesh share a colour: the dash tells them apart here too. */}
          <svg width="16" height="8" aria-hidden="true" style={{ marginRight: 4 }}>
            <line
              x1="0"
              y1="4"
              x2="16"
              y2="4"
              stroke={l.style.color}
              strokeWidth="2"
              strokeDasharray={l.style.dash}
            />
          </svg>
          {l.label}: <strong>{format(l.key, row[l.key] ?? null)}</strong>
        </div>
      ))}
    </div>
  );
}

export function TimelineOverlayChart({
  rows,
  lines,
  domain,
  unit,
  height,
  kind,
  format,
  testId,
}: {
  rows: OverlayRow[];
  /** The runs drawn here (those with data for this chart). */
  lines: OverlayRunLine[];
  domain: [number, number];
  unit: string | null;
  height: number;
  kind: 'cumulative' | 'series';
  /** A run's value as the tooltip reads it. */
  format: (key: string, v: number | null) => string;
  testId?: string;
}) {
  return (
    <div className="overlay-chart" style={{ height }} data-testid={testId}>
      <ResponsiveContainer width="100%" height="100%">
        {/* Keyed by its runs: Recharts draws lines in the order they mounted, so a run whose
            timeline arrives late would be drawn over the baseline, not under it. */}
        <LineChart key={lines.map((l) => l.key).join(' ')} data={rows} margin={TIMELINE_MARGIN}>
          <CartesianGrid stroke={TIMELINE_GRID_STROKE} />
          <XAxis {...timeAxisProps(domain)} />
          <YAxis
            width={Y_AXIS_WIDTH}
            tick={TIMELINE_TICK}
            // "{stream}" and the like are said once in the panel's title, not on every tick.
            tickFormatter={(v: number) => formatValue(v, unit?.startsWith('{') ? null : unit)}
          />
          <Tooltip
            content={<OverlayTooltip lines={lines} format={format} />}
            isAnimationActive={false}
          />
          {lines.map((l) => (
            <Line
              key={l.key}
              dataKey={l.key}
              name={l.label}
              stroke={l.style.color}
              strokeDasharray={l.style.dash}
              strokeWidth={1.8}
              dot={false}
              type={kind === 'cumulative' ? 'stepAfter' : 'linear'}
              connectNulls={false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
