// Draws prepared tail-cause shares: one horizontal bar per run, stacked by cause, 0-100 %.
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
import { formatCount, formatPercent } from './prepare/format.ts';
import type { PreparedTailShares, TailShareRow } from './prepare/tail-shares.ts';
import { AXIS_TICK, CATEGORY_TICK, GRID_STROKE, percentTick, STACKED_BAR_CURSOR } from './theme.ts';

type ChartRow = TailShareRow & { label: string };

function CauseTooltip({ active, payload }: Partial<TooltipContentProps<number, string>>) {
  const row = payload?.[0]?.payload as ChartRow | undefined;
  if (!active || !row) return null;
  return (
    <div className="chart-tooltip">
      <div>
        <strong>{row.label}</strong>: {formatCount(row.total)} in the tail
      </div>
      {payload?.map((p) =>
        p.value ? (
          <div key={String(p.name)} style={{ color: p.color }}>
            {p.name}: {formatPercent(Number(p.value) / 100)} (
            {formatCount(row.count[String(p.name)])})
          </div>
        ) : null,
      )}
    </div>
  );
}

export function TailSharesChart({
  shares,
  labels,
}: {
  shares: PreparedTailShares;
  /** Per row key, the run's label on the y axis. */
  labels: Record<string, string>;
}) {
  const rows: ChartRow[] = shares.rows.flatMap((r) =>
    r ? [{ ...r, label: labels[r.key] ?? r.key }] : [],
  );
  return (
    <ResponsiveContainer width="100%" height={40 + rows.length * 44}>
      <BarChart
        data={rows}
        layout="vertical"
        margin={{ top: 4, right: 24, bottom: 4, left: 4 }}
        barCategoryGap={8}
      >
        <CartesianGrid horizontal={false} stroke={GRID_STROKE} />
        <XAxis
          interval={0}
          type="number"
          domain={[0, 100]}
          ticks={[0, 20, 40, 60, 80, 100]}
          tickFormatter={percentTick}
          tick={AXIS_TICK}
        />
        <YAxis interval={0} type="category" dataKey="label" width={120} tick={CATEGORY_TICK} />
        <Tooltip content={<CauseTooltip />} cursor={STACKED_BAR_CURSOR} />
        {shares.causes.map((c) => (
          <Bar
            key={c.cause}
            dataKey={(row: ChartRow) => row.percent[c.cause] ?? 0}
            name={c.cause}
            stackId="tail"
            fill={c.color}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
