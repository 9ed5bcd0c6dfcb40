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
import { formatDuration, formatMs, formatPercent } from './prepare/format.ts';
import type { SeriesStyle } from './prepare/series-style.ts';

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

const percentTick = (v: number) => `${v} %`;

export function CdfOverlayChart({
  overlay,
  series,
  height = 300,
}: {
  overlay: PreparedCdfOverlay;
  series: OverlaySeries[];
  height?: number;
}) {
  const drawn = series.filter((s) => overlay.keys.includes(s.key));
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart data={overlay.rows} margin={{ top: 8, right: 28, bottom: 20, left: 4 }}>
        <CartesianGrid stroke="#e6e8eb" />
        <XAxis
          interval={0}
          dataKey="ms"
          type="number"
          scale={overlay.scale}
          domain={overlay.domain}
          ticks={overlay.ticks}
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
          ticks={overlay.percentTicks}
          tickFormatter={percentTick}
          width={52}
          tick={{ fontSize: 12, fill: '#4b5563' }}
        />
        {overlay.marker && (
          <ReferenceLine
            x={overlay.marker.ms}
            stroke="#9ca3af"
            strokeDasharray="4 3"
            label={{
              value: overlay.marker.label,
              position: 'insideBottomRight',
              fontSize: 12,
              fill: '#4b5563',
            }}
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
