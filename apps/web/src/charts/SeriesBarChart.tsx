// Draws prepared series as grouped bars, one group per x value (e.g. errors per connection
// count, one bar per mode).
import {
  Bar,
  BarChart,
  CartesianGrid,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from 'recharts';
import type { NumberAxis, SeriesRow, SeriesSpec } from './prepare/load-results.ts';
import { AXIS_TICK, axisLabel, BAR_CURSOR, GRID_STROKE, SERIES_MARGIN } from './theme.ts';

function GroupTooltip({
  active,
  payload,
  series,
  formatX,
  formatY,
}: Partial<TooltipContentProps<number, string>> & {
  series: SeriesSpec[];
  formatX: (x: number) => string;
  formatY: (y: number) => string;
}) {
  const row = payload?.[0]?.payload as SeriesRow | undefined;
  if (!active || !row) return null;
  return (
    <div className="chart-tooltip">
      <div>{formatX(row.x)}</div>
      {series.map((s) =>
        typeof row[s.key] === 'number' ? (
          <div key={s.key} style={{ color: s.color }}>
            {s.label}: <strong>{formatY(row[s.key] as number)}</strong>
          </div>
        ) : null,
      )}
    </div>
  );
}

export function SeriesBarChart({
  bars,
  xLabel,
  formatX,
  formatXTick = formatX,
  formatY,
  height = 250,
}: {
  bars: { series: SeriesSpec[]; rows: SeriesRow[]; y: NumberAxis };
  xLabel: string;
  formatX: (x: number) => string;
  formatXTick?: (x: number) => string;
  formatY: (y: number) => string;
  height?: number;
}) {
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={bars.rows} margin={SERIES_MARGIN}>
        <CartesianGrid vertical={false} stroke={GRID_STROKE} />
        <XAxis
          dataKey="x"
          type="category"
          tickFormatter={formatXTick}
          interval={0}
          tick={AXIS_TICK}
          label={axisLabel(xLabel)}
        />
        <YAxis
          type="number"
          domain={bars.y.domain}
          ticks={bars.y.ticks}
          tickFormatter={formatY}
          allowDecimals={false}
          width={52}
          tick={AXIS_TICK}
        />
        <Tooltip
          content={<GroupTooltip series={bars.series} formatX={formatX} formatY={formatY} />}
          cursor={BAR_CURSOR}
        />
        {bars.series.map((s) => (
          <Bar
            key={s.key}
            dataKey={s.key}
            name={s.label}
            fill={s.color}
            fillOpacity={s.dash ? 0.55 : 1}
            stroke={s.color}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
