import { useMemo } from 'react';
// Draws prepared convergence curves of several runs on one chart, one line per run.
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from 'recharts';
import type { OverlayRow, PreparedCdfOverlay } from './prepare/cdf-overlay.ts';
import { durationTickFormatter } from './prepare/duration.ts';
import { formatMs, formatPercent } from './prepare/format.ts';
import type { SeriesStyle } from './prepare/series-style.ts';
import {
  AXIS_TICK,
  axisLabel,
  GRID_STROKE,
  MARKER_LINE,
  markerLabel,
  PANEL_MARGIN,
  percentTick,
} from './theme.ts';
import { useFittedTicks } from './use-plot-width.ts';

export interface OverlaySeries {
  key: string;
  label: string;
  style: SeriesStyle;
}

function RowsTooltip({
  active,
  payload,
  series,
}: Partial<TooltipContentProps<number, string>> & { series: OverlaySeries[] }) {
  const row = payload?.[0]?.payload as OverlayRow | undefined;
  if (!active || !row) return null;
  return (
    <div className="chart-tooltip">
      <div>by {formatMs(row.ms)}</div>
      {series.map((s) =>
        row[s.key] === undefined ? null : (
          <div key={s.key} style={{ color: s.style.color }}>
            {s.label}: <strong>{formatPercent((row[s.key] as number) / 100)}</strong>
          </div>
        ),
      )}
    </div>
  );
}

export function CdfOverlayChart({
  overlay,
  series,
  height = 300,
}: {
  overlay: PreparedCdfOverlay;
  series: OverlaySeries[];
  height?: number;
}) {
  // One unit on the axis: the one its largest tick takes.
  const tickText = useMemo(() => durationTickFormatter(overlay.ticks), [overlay.ticks]);
  const [ticks, onResize] = useFittedTicks(overlay.ticks, tickText, PANEL_MARGIN, 52);
  const drawn = series.filter((s) => overlay.keys.includes(s.key));
  return (
    <ResponsiveContainer width="100%" height={height} onResize={onResize}>
      <LineChart data={overlay.rows} margin={PANEL_MARGIN}>
        <CartesianGrid stroke={GRID_STROKE} />
        <XAxis
          interval={0}
          dataKey="ms"
          type="number"
          scale={overlay.scale}
          domain={overlay.domain}
          ticks={ticks}
          tickFormatter={tickText}
          allowDataOverflow
          tick={AXIS_TICK}
          label={axisLabel('time since the change')}
        />
        <YAxis
          interval={0}
          domain={[0, 100]}
          ticks={overlay.percentTicks}
          tickFormatter={percentTick}
          width={52}
          tick={AXIS_TICK}
        />
        {overlay.marker && (
          <ReferenceLine
            x={overlay.marker.ms}
            {...MARKER_LINE}
            label={markerLabel(overlay.marker.label)}
          />
        )}
        <Tooltip content={<RowsTooltip series={drawn} />} />
        {drawn.map((s) => (
          <Line
            key={s.key}
            type="stepAfter"
            dataKey={s.key}
            name={s.label}
            stroke={s.style.color}
            strokeDasharray={s.style.dash}
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
}
