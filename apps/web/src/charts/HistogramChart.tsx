// Draws a prepared latency histogram: bars on a linear or log time axis.
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
import { formatCount, formatDuration } from './prepare/format.ts';
import type { HistogramBar, PreparedHistogram } from './prepare/histogram.ts';

function BinTooltip({ active, payload }: Partial<TooltipContentProps<number, string>>) {
  const bar = payload?.[0]?.payload as HistogramBar | undefined;
  if (!active || !bar) return null;
  return (
    <div className="chart-tooltip">
      <div>{bar.label}</div>
      <strong>{formatCount(bar.count)} proxies</strong>
    </div>
  );
}

export function HistogramChart({
  histogram,
  color,
  height = 260,
}: {
  histogram: PreparedHistogram;
  color: string;
  height?: number;
}) {
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart
        data={histogram.bars}
        margin={{ top: 8, right: 28, bottom: 20, left: 4 }}
        barCategoryGap={1}
      >
        <CartesianGrid vertical={false} stroke="#e6e8eb" />
        <XAxis
          interval={0}
          dataKey="midMs"
          type="number"
          scale={histogram.scale}
          domain={histogram.domain}
          ticks={histogram.ticks}
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
          domain={histogram.countDomain}
          ticks={histogram.countTicks}
          tickFormatter={formatCount}
          width={52}
          tick={{ fontSize: 12, fill: '#4b5563' }}
        />
        <Tooltip content={<BinTooltip />} cursor={{ fill: 'rgba(0,0,0,0.05)' }} />
        <Bar dataKey="count" fill={color} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
