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
        <CartesianGrid horizontal={false} stroke="#e6e8eb" />
        <XAxis
          type="number"
          domain={causes.countDomain}
          ticks={causes.countTicks}
          tickFormatter={formatCount}
          tick={{ fontSize: 12, fill: '#4b5563' }}
          label={{
            value: 'proxies',
            position: 'insideBottomRight',
            offset: -12,
            fontSize: 12,
            fill: '#6b7280',
          }}
        />
        <YAxis
          type="category"
          dataKey="cause"
          width={NAME_WIDTH}
          interval={0}
          tick={{ fontSize: 12, fill: '#1f2933' }}
        />
        <Tooltip content={<CauseTooltip />} cursor={{ fill: 'rgba(0,0,0,0.05)' }} />
        <Bar dataKey="count" isAnimationActive={false}>
          {causes.bars.map((b) => (
            <Cell key={b.cause} fill={b.color} />
          ))}
          <LabelList dataKey="label" position="right" fontSize={12} fill="#1f2933" />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
