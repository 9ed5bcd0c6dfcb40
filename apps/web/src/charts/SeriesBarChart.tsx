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
      <BarChart data={bars.rows} margin={{ top: 10, right: 18, bottom: 20, left: 4 }}>
        <CartesianGrid vertical={false} stroke="#e6e8eb" />
        <XAxis
          dataKey="x"
          type="category"
          tickFormatter={formatXTick}
          interval={0}
          tick={{ fontSize: 12, fill: '#4b5563' }}
          label={{
            value: xLabel,
            position: 'insideBottom',
            offset: -12,
            fontSize: 12,
            fill: '#6b7280',
          }}
        />
        <YAxis
          type="number"
          domain={bars.y.domain}
          ticks={bars.y.ticks}
          tickFormatter={formatY}
          allowDecimals={false}
          width={52}
          tick={{ fontSize: 12, fill: '#4b5563' }}
        />
        <Tooltip
          content={<GroupTooltip series={bars.series} formatX={formatX} formatY={formatY} />}
          cursor={{ fill: 'rgba(0,0,0,0.05)' }}
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
