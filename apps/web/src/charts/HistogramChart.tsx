// Draws a prepared latency histogram: bars on a linear or log time axis, with the marked
// percentiles and the "within" threshold as vertical lines.
import { useCallback, useMemo } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from 'recharts';
import { durationTickFormatter } from './prepare/duration.ts';
import { formatCount } from './prepare/format.ts';
import type { HistogramBar, PreparedHistogram } from './prepare/histogram.ts';
import {
  AXIS_TICK,
  axisLabel,
  BAR_CURSOR,
  GRID_STROKE,
  MARKER_LINE,
  markerLabel,
  PANEL_MARGIN,
  PERCENTILE_LINE,
  percentileLabel,
} from './theme.ts';
import { useFittedTicks, usePlotMeasure } from './use-plot-width.ts';

// Room above the bars for the percentile labels.
const MARGIN = { ...PANEL_MARGIN, top: 18 };

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

/**
 * On a narrow chart (small multiples, a printed page), a bar's width in px: one bin's share
 * of the plot less a 1 px gap where it has room, at least 1.5 px. Left to itself recharts
 * draws bars of a fraction of a pixel there, which print as a faint haze. Undefined where a
 * bin is 4 px or wider: recharts' own width is right.
 */
function narrowBarWidth(histogram: PreparedHistogram, plotWidth: number): number | undefined {
  const bar = histogram.bars[0];
  if (!bar) return undefined;
  const f = histogram.scale === 'log' ? Math.log10 : (x: number) => x;
  const [from, to] = histogram.domain;
  const span = f(to) - f(from);
  const lower = histogram.scale === 'log' ? Math.max(bar.fromMs, from) : bar.fromMs;
  if (!(span > 0) || (histogram.scale === 'log' && !(lower > 0))) return undefined;
  const binPx = (plotWidth * (f(bar.toMs) - f(lower))) / span;
  return binPx >= 4 ? undefined : Math.max(binPx, 1.5);
}

export function HistogramChart({
  histogram,
  color,
  height = 260,
  axisTitle = 'time since the change',
}: {
  histogram: PreparedHistogram;
  color: string;
  height?: number;
  /** What the time axis measures. */
  axisTitle?: string;
}) {
  // One unit on the axis: the one its largest tick takes.
  const tickText = useMemo(() => durationTickFormatter(histogram.ticks), [histogram.ticks]);
  const [ticks, fitTicks] = useFittedTicks(histogram.ticks, tickText, MARGIN, 52);
  const measureBars = useCallback((w: number) => narrowBarWidth(histogram, w), [histogram]);
  const [barSize, fitBars] = usePlotMeasure(undefined, measureBars, MARGIN, 52);
  const onResize = useCallback(
    (width: number) => {
      fitTicks(width);
      fitBars(width);
    },
    [fitTicks, fitBars],
  );
  return (
    <ResponsiveContainer width="100%" height={height} onResize={onResize}>
      <BarChart
        data={histogram.bars}
        margin={MARGIN}
        barCategoryGap={1}
        {...(barSize !== undefined ? { barSize } : {})}
      >
        <CartesianGrid vertical={false} stroke={GRID_STROKE} />
        <XAxis
          interval={0}
          dataKey="midMs"
          type="number"
          scale={histogram.scale}
          domain={histogram.domain}
          ticks={ticks}
          tickFormatter={tickText}
          allowDataOverflow
          tick={AXIS_TICK}
          label={axisLabel(axisTitle)}
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
        {histogram.markers.map((m) =>
          m.kind === 'within' ? (
            <ReferenceLine key={m.label} x={m.ms} {...MARKER_LINE} label={markerLabel(m.label)} />
          ) : (
            <ReferenceLine
              key={m.label}
              x={m.ms}
              {...PERCENTILE_LINE}
              label={percentileLabel(m.label)}
              className="histogram-marker"
            />
          ),
        )}
      </BarChart>
    </ResponsiveContainer>
  );
}
