// Draws a change's tail by cause: one horizontal bar per cause, its count and share at the end.
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  LabelList,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from 'recharts';
import { formatCount, formatPercent } from './prepare/format.ts';
import type { CauseBar, PreparedTailCauses } from './prepare/tail.ts';
import { AXIS_TICK, axisLabel, BAR_CURSOR, CATEGORY_TICK, GRID_STROKE } from './theme.ts';

function CauseTooltip({ active, payload }: Partial<TooltipContentProps<number, string>>) {
  const bar = payload?.[0]?.payload as CauseBar | undefined;
  if (!active || !bar) return null;
  return (
    <div className="chart-tooltip">
      <div>{bar.cause}</div>
      <strong>
        {formatCount(bar.count)} proxies · {formatPercent(bar.share)} of the tail
      </strong>
    </div>
  );
}

/** Room for the longest cause names the probes send ("leader-election", "tcp-retransmits"). */
const NAME_WIDTH = 130;
const BAR_ROW = 30;

export function TailCauseChart({ causes }: { causes: PreparedTailCauses }) {
  const height = Math.max(90, causes.bars.length * BAR_ROW + 40);
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart
        data={causes.bars}
        layout="vertical"
        margin={{ top: 4, right: 110, bottom: 16, left: 4 }}
        barCategoryGap={6}
      >
        <CartesianGrid horizontal={false} stroke={GRID_STROKE} />
        <XAxis
          type="number"
          domain={causes.countDomain}
          ticks={causes.countTicks}
          tickFormatter={formatCount}
          tick={AXIS_TICK}
          label={axisLabel('proxies', 'insideBottomRight')}
        />
        <YAxis
          type="category"
          dataKey="cause"
          width={NAME_WIDTH}
          interval={0}
          tick={CATEGORY_TICK}
        />
        <Tooltip content={<CauseTooltip />} cursor={BAR_CURSOR} />
        <Bar dataKey="count" isAnimationActive={false}>
          {causes.bars.map((b) => (
            <Cell key={b.cause} fill={b.color} />
          ))}
          <LabelList dataKey="label" position="right" {...CATEGORY_TICK} />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
