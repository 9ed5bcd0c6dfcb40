// One chart of the scale-up timeline: some of the aligned lines over the shared time axis
// (ms since the run start), each with its per-bucket min/max band, the markers it is given
// (time to x % joined, peak and steady levels), a tooltip listing every line of the
// timeline at the cursor and drag-to-select on the time axis (the parent zooms).
import {
  Area,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from 'recharts';
import {
  formatOffset,
  formatValue,
  type TimelineLine,
  type TimelineRow,
} from './prepare/timeline.ts';
import { MARKER_LINE, TIMELINE_GRID_STROKE, TIMELINE_MARGIN, TIMELINE_TICK } from './theme.ts';
import { timeAxisProps } from './time-axis.ts';

/** The y axes' width, the same in every chart so that their time axes line up. */
const Y_AXIS_WIDTH = 84;

/** A vertical mark at a time (time to 90 % joined) or a horizontal one at a level (peak). */
export interface TimelineMarker {
  axis: 'x' | 'y';
  at: number;
  /** Drawn beside the mark; omitted on charts that only repeat another's marks. */
  label?: string;
  /** A level's label at the right end of its line (two close levels' labels side by side). */
  right?: boolean;
}

function TimelineTooltip({
  active,
  payload,
  all,
  shown,
}: Partial<TooltipContentProps<number, string>> & { all: TimelineLine[]; shown: boolean }) {
  const row = payload?.[0]?.payload as TimelineRow | undefined;
  // Synced charts show only the cursor: one tooltip, in the chart under the pointer.
  if (!active || !row || !shown) return null;
  return (
    <div className="chart-tooltip" data-testid="timeline-tooltip">
      <div>
        <strong>{formatOffset(row.t)}</strong> after the start
      </div>
      {all.map((l) => {
        const v = row[l.key];
        return (
          <div key={l.key} style={{ color: l.color }}>
            {l.label}: <strong>{formatValue(v ?? null, l.unit)}</strong>
          </div>
        );
      })}
    </div>
  );
}

export interface TimelineChartProps {
  rows: TimelineRow[];
  /** The lines this chart draws. */
  lines: TimelineLine[];
  /** Every line of the timeline, for the tooltip. */
  all: TimelineLine[];
  domain: [number, number];
  height: number;
  /** The y axis's unit (the lines share it). */
  unit: string | null;
  /** What the y axis counts in, written along it: "%", "MiB", "ms", "count", "per second". */
  yTitle: string;
  markers?: TimelineMarker[];
  legend?: boolean;
  /** The range being dragged over, drawn as a band. */
  dragging: { from: number; to: number } | null;
  onDragStart: (t: number) => void;
  onDragMove: (t: number) => void;
  onDragEnd: () => void;
  testId?: string;
  /** Whether the pointer is over this chart (the one that shows the tooltip). */
  hovered: boolean;
  onHover: (over: boolean) => void;
}

function labelOf(state: unknown): number | null {
  const label = (state as { activeLabel?: unknown } | null)?.activeLabel;
  const n = typeof label === 'number' ? label : Number(label);
  return label === undefined || label === null || !Number.isFinite(n) ? null : n;
}

export function TimelineChart({
  rows,
  lines,
  all,
  domain,
  height,
  unit,
  yTitle,
  markers = [],
  legend = false,
  dragging,
  onDragStart,
  onDragMove,
  onDragEnd,
  testId,
  hovered,
  onHover,
}: TimelineChartProps) {
  return (
    <div className="timeline-chart" style={{ height }} data-testid={testId}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart
          data={rows}
          syncId="run-timeline"
          margin={TIMELINE_MARGIN}
          onMouseDown={(state) => {
            const t = labelOf(state);
            if (t !== null) onDragStart(t);
          }}
          onMouseMove={(state) => {
            const t = labelOf(state);
            if (t !== null && dragging) onDragMove(t);
          }}
          onMouseUp={() => onDragEnd()}
          onMouseEnter={() => onHover(true)}
          onMouseLeave={() => {
            onHover(false);
            if (dragging) onDragEnd();
          }}
          style={{ userSelect: 'none' }}
        >
          <CartesianGrid stroke={TIMELINE_GRID_STROKE} />
          <XAxis {...timeAxisProps(domain)} />
          <YAxis
            width={Y_AXIS_WIDTH}
            tick={TIMELINE_TICK}
            tickFormatter={(v: number) => formatValue(v, unit)}
            allowDecimals
            // Room above the top tick for a label over the peak.
            padding={{ top: 14 }}
            label={{
              value: yTitle,
              angle: -90,
              position: 'insideLeft',
              offset: 8,
              fontSize: 11,
              fill: '#6b7280',
              style: { textAnchor: 'middle' },
            }}
          />
          <Tooltip
            content={<TimelineTooltip all={all} shown={hovered} />}
            isAnimationActive={false}
          />
          {legend && <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />}
          {lines.map((l) =>
            l.band ? (
              <Area
                key={`${l.key}-band`}
                dataKey={(r: TimelineRow) => {
                  const lo = r[l.band?.lo ?? ''];
                  const hi = r[l.band?.hi ?? ''];
                  return lo === null || lo === undefined || hi === null || hi === undefined
                    ? null
                    : [lo, hi];
                }}
                name={`${l.label} (min–max)`}
                legendType="none"
                tooltipType="none"
                stroke="none"
                fill={l.color}
                fillOpacity={0.16}
                type="stepAfter"
                connectNulls={false}
                isAnimationActive={false}
                activeDot={false}
              />
            ) : null,
          )}
          {lines.map((l) => (
            <Line
              key={l.key}
              dataKey={l.key}
              name={l.label}
              stroke={l.color}
              dot={false}
              strokeWidth={1.6}
              strokeDasharray={l.dashed ? '5 3' : undefined}
              type={l.kind === 'phase' ? 'stepAfter' : 'linear'}
              connectNulls={false}
              isAnimationActive={false}
            />
          ))}
          {markers.map((m) =>
            m.axis === 'x' ? (
              <ReferenceLine
                key={`x${m.at}${m.label ?? ''}`}
                x={m.at}
                {...MARKER_LINE}
                ifOverflow="hidden"
                label={
                  m.label
                    ? { value: m.label, position: 'insideTopRight', fontSize: 11, fill: '#4b5563' }
                    : undefined
                }
              />
            ) : (
              <ReferenceLine
                key={`y${m.at}${m.label ?? ''}`}
                y={m.at}
                stroke="#6b7280"
                strokeDasharray="2 3"
                ifOverflow="extendDomain"
                label={
                  m.label
                    ? {
                        value: m.label,
                        position: m.right ? 'insideBottomRight' : 'insideBottomLeft',
                        fontSize: 11,
                        fill: '#374151',
                      }
                    : undefined
                }
              />
            ),
          )}
          {dragging && (
            <ReferenceArea
              x1={dragging.from}
              x2={dragging.to}
              fill="#2f5fd0"
              fillOpacity={0.12}
              ifOverflow="hidden"
            />
          )}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
