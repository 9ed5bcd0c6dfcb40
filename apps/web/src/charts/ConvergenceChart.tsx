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
import { formatDuration, formatMs, formatPercent } from './prepare/format.ts';

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

const percentTick = (v: number) => `${v} %`;

export function ConvergenceChart({
  cdf,
  color,
  height = 260,
}: {
  cdf: PreparedCdf;
  color: string;
  height?: number;
}) {
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart data={cdf.points} margin={{ top: 8, right: 28, bottom: 20, left: 4 }}>
        <CartesianGrid stroke="#e6e8eb" />
        <XAxis
          interval={0}
          dataKey="ms"
          type="number"
          scale={cdf.scale}
          domain={cdf.domain}
          ticks={cdf.ticks}
          tickFormatter={formatDuration}
          allowDataOverflow
          tick={{ fontSize: 12, fill: '#4b5563' }}
          label={{
            value: 'time since the change',
            position: 'insideBottom',
            offset: -12,
            fontSize: 12,
            fill: '#6b7280',
          }}
        />
        <YAxis
          interval={0}
          domain={[0, 100]}
          ticks={cdf.percentTicks}
          tickFormatter={percentTick}
          width={52}
          tick={{ fontSize: 12, fill: '#4b5563' }}
        />
        {cdf.marker && (
          <ReferenceLine
            x={cdf.marker.ms}
            stroke="#9ca3af"
            strokeDasharray="4 3"
            label={{
              value: cdf.marker.label,
              position: 'insideBottomRight',
              fontSize: 12,
              fill: '#4b5563',
            }}
          />
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
