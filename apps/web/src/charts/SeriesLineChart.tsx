// Draws prepared series as lines over a numeric x axis (connections, rate), with optional
// horizontal reference lines and marked points (e.g. over a limit).
import { type ReactNode, useMemo } from 'react';
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
import { markKey, type PreparedLines, type SeriesRow } from './prepare/load-results.ts';
import { AXIS_TICK, axisLabel, GRID_STROKE, SERIES_MARGIN } from './theme.ts';

export interface ReferenceY {
  y: number;
  label: string;
}

const MARK_COLOR = '#b42318';

function RowTooltip({
  active,
  payload,
  lines,
  formatX,
  formatY,
  describePoint,
}: Partial<TooltipContentProps<number, string>> & {
  lines: PreparedLines;
  formatX: (x: number) => string;
  formatY: (y: number) => string;
  describePoint?: ((seriesKey: string, row: SeriesRow) => string | null) | undefined;
}) {
  const row = payload?.[0]?.payload as SeriesRow | undefined;
  if (!active || !row) return null;
  return (
    <div className="chart-tooltip">
      <div>{formatX(row.x)}</div>
      {lines.series.map((s) => {
        const v = row[s.key];
        if (typeof v !== 'number') return null;
        const detail = describePoint?.(s.key, row) ?? null;
        return (
          <div key={s.key} style={{ color: s.color }}>
            {s.label}: <strong>{formatY(v)}</strong>
            {row[markKey(s.key)] === true && ' ⚠'}
            {detail && <span className="tooltip-detail"> ({detail})</span>}
          </div>
        );
      })}
    </div>
  );
}

interface DotProps {
  cx?: number;
  cy?: number;
  payload?: SeriesRow;
}

export function SeriesLineChart({
  lines,
  xLabel,
  formatX,
  formatXTick = formatX,
  formatY,
  formatYTick = formatY,
  referenceY = [],
  height = 250,
  yWidth = 52,
  describePoint,
  children,
  dots = true,
}: {
  lines: PreparedLines;
  xLabel: string;
  formatX: (x: number) => string;
  formatXTick?: (x: number) => string;
  formatY: (y: number) => string;
  formatYTick?: (y: number) => string;
  referenceY?: ReferenceY[];
  height?: number;
  yWidth?: number;
  /** More of a point for its tooltip line (e.g. the counts behind a rate). */
  describePoint?: (seriesKey: string, row: SeriesRow) => string | null;
  /** More marks behind the lines (e.g. recharts ReferenceAreas for a run's stages). */
  children?: ReactNode;
  /** false: no dot on each point (many points), marked points still drawn. */
  dots?: boolean;
}) {
  // Without dots, a series with no marked point draws no dot layer at all: hundreds of points'
  // empty marks cost recharts most of a chart's first drawing (a stages run's 300 intervals).
  const marked = useMemo(
    () =>
      new Set(
        lines.series
          .filter((s) => lines.rows.some((r) => r[markKey(s.key)] === true))
          .map((s) => s.key),
      ),
    [lines],
  );
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart data={lines.rows} margin={SERIES_MARGIN}>
        <CartesianGrid stroke={GRID_STROKE} />
        <XAxis
          dataKey="x"
          type="number"
          scale={lines.x.scale}
          domain={lines.x.domain}
          ticks={lines.x.ticks}
          tickFormatter={formatXTick}
          allowDataOverflow
          interval={0}
          tick={AXIS_TICK}
          label={axisLabel(xLabel)}
        />
        <YAxis
          type="number"
          scale={lines.y.scale}
          domain={lines.y.domain}
          ticks={lines.y.ticks}
          tickFormatter={formatYTick}
          allowDataOverflow
          width={yWidth}
          tick={AXIS_TICK}
        />
        {children}
        {referenceY.map((r) => (
          <ReferenceLine
            key={r.label}
            y={r.y}
            stroke={MARK_COLOR}
            strokeDasharray="5 4"
            label={{ value: r.label, position: 'insideTopRight', fontSize: 12, fill: MARK_COLOR }}
          />
        ))}
        <Tooltip
          content={
            <RowTooltip
              lines={lines}
              formatX={formatX}
              formatY={formatY}
              describePoint={describePoint}
            />
          }
        />
        {lines.series.map((s) => (
          <Line
            key={s.key}
            dataKey={s.key}
            name={s.label}
            type="linear"
            stroke={s.color}
            strokeWidth={2}
            strokeDasharray={s.dash || undefined}
            connectNulls
            isAnimationActive={false}
            dot={
              !dots && !marked.has(s.key)
                ? false
                : (props: DotProps) => {
                    const { cx, cy, payload } = props;
                    const key = `${s.key}-${payload?.x}`;
                    if (
                      cx === undefined ||
                      cy === undefined ||
                      typeof payload?.[s.key] !== 'number'
                    ) {
                      return <g key={key} />;
                    }
                    return payload[markKey(s.key)] === true ? (
                      <circle
                        key={key}
                        cx={cx}
                        cy={cy}
                        r={6}
                        fill={MARK_COLOR}
                        stroke="#fff"
                        strokeWidth={1.5}
                        data-marked="true"
                      />
                    ) : !dots ? (
                      <g key={key} />
                    ) : (
                      <circle
                        key={key}
                        cx={cx}
                        cy={cy}
                        r={3}
                        fill="#fff"
                        stroke={s.color}
                        strokeWidth={2}
                      />
                    );
                  }
            }
            activeDot={{ r: 5 }}
          />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
}
