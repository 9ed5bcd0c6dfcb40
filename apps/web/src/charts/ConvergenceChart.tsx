import { useMemo } from 'react';
// Draws a prepared convergence curve: % of expected proxies updated vs time since the change.
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
import type { ConvergencePoint, PreparedCdf } from './prepare/cdf.ts';
import { durationTickFormatter } from './prepare/duration.ts';
import { formatMs, formatPercent } from './prepare/format.ts';
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

function PointTooltip({ active, payload }: Partial<TooltipContentProps<number, string>>) {
  const point = payload?.[0]?.payload as ConvergencePoint | undefined;
  if (!active || !point) return null;
  return (
    <div className="chart-tooltip">
      <div>by {formatMs(point.ms)}</div>
      <strong>{formatPercent(point.percent / 100)} updated</strong>
    </div>
  );
}

export function ConvergenceChart({
  cdf,
  color,
  height = 260,
}: {
  cdf: PreparedCdf;
  color: string;
  height?: number;
}) {
  // One unit on the axis: the one its largest tick takes.
  const tickText = useMemo(() => durationTickFormatter(cdf.ticks), [cdf.ticks]);
  const [ticks, onResize] = useFittedTicks(cdf.ticks, tickText, PANEL_MARGIN, 52);
  return (
    <ResponsiveContainer width="100%" height={height} onResize={onResize}>
      <LineChart data={cdf.points} margin={PANEL_MARGIN}>
        <CartesianGrid stroke={GRID_STROKE} />
        <XAxis
          interval={0}
          dataKey="ms"
          type="number"
          scale={cdf.scale}
          domain={cdf.domain}
          ticks={ticks}
          tickFormatter={tickText}
          allowDataOverflow
          tick={AXIS_TICK}
          label={axisLabel('time since the change')}
        />
        <YAxis
          interval={0}
          domain={[0, 100]}
          ticks={cdf.percentTicks}
          tickFormatter={percentTick}
          width={52}
          tick={AXIS_TICK}
        />
        {cdf.marker && (
          <ReferenceLine x={cdf.marker.ms} {...MARKER_LINE} label={markerLabel(cdf.marker.label)} />
        )}
        <Tooltip content={<PointTooltip />} />
        <Line
          type="stepAfter"
          dataKey="percent"
          stroke={color}
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
      </LineChart>
    </ResponsiveContainer>
  );
}
