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
import { AXIS_TICK, axisLabel, BAR_CURSOR, GRID_STROKE, PANEL_MARGIN } from './theme.ts';

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
      <BarChart data={histogram.bars} margin={PANEL_MARGIN} barCategoryGap={1}>
        <CartesianGrid vertical={false} stroke={GRID_STROKE} />
        <XAxis
          interval={0}
          dataKey="midMs"
          type="number"
          scale={histogram.scale}
          domain={histogram.domain}
          ticks={histogram.ticks}
          tickFormatter={formatDuration}
          allowDataOverflow
          tick={AXIS_TICK}
          label={axisLabel('time since the change')}
        />
        <YAxis
          interval={0}
          domain={histogram.countDomain}
          ticks={histogram.countTicks}
          tickFormatter={formatCount}
          width={52}
          tick={AXIS_TICK}
        />
        <Tooltip content={<BinTooltip />} cursor={BAR_CURSOR} />
        <Bar dataKey="count" fill={color} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
