// Draws a History: one line per mesh over time (or commit order), the change points as
// marked vertical lines named by their change; a click opens the run under the pointer.
import type { HistoryMetric } from '@meshbench/schema';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import {
  type ChangePointMark,
  formatMetric,
  type HistoryRow,
  historyDateLabel,
} from './prepare/history.ts';
import { meshColor } from './prepare/mesh-colors.ts';

/** Each mesh's line its own pattern, so the legend tells them apart without colour. */
const MESH_DASHES = ['', '8 4', '2 3', '12 3 2 3'] as const;

export function HistoryChart({
  rows,
  meshes,
  marks,
  metric,
  byTime,
  onOpenRun,
}: {
  rows: HistoryRow[];
  meshes: string[];
  marks: ChangePointMark[];
  metric: HistoryMetric;
  /** A real time axis; else commit order, one step per run. */
  byTime: boolean;
  onOpenRun: (runId: string) => void;
}) {
  const x = (m: { index: number }) => (byTime ? rows[m.index]?.time : m.index);
  const span = (rows.at(-1)?.time ?? 0) - (rows[0]?.time ?? 0);
  const date = (v: number) => {
    const ms = byTime ? v : rows[v]?.time;
    return ms === undefined ? '' : historyDateLabel(ms, span);
  };
  return (
    <ResponsiveContainer width="100%" height={320}>
      <LineChart
        data={rows}
        margin={{ top: 24, right: 20, bottom: 10, left: 10 }}
        style={{ cursor: 'pointer' }}
        onClick={(state) => {
          // A click opens the run under the pointer.
          const row = rows[Number(state?.activeTooltipIndex)];
          if (row) onOpenRun(row.runId);
        }}
      >
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis
          dataKey={byTime ? 'time' : 'index'}
          type="number"
          scale={byTime ? 'time' : 'linear'}
          domain={['dataMin', 'dataMax']}
          tickFormatter={date}
        />
        <YAxis
          tickFormatter={(v: number) => (v === 0 ? '0' : formatMetric(metric, v))}
          width={90}
        />
        <Tooltip
          labelFormatter={(_label, payload) => {
            const r = payload?.[0]?.payload as HistoryRow | undefined;
            if (!r) return '';
            const commit = r.sha ? ` · ${r.sha}` : '';
            const branch = r.branch ? ` · ${r.branch}` : '';
            return `${r.mesh} · ${r.startedAt.replace('T', ' ').slice(0, 16)}${branch}${commit} (click: the run)`;
          }}
          formatter={(v) => formatMetric(metric, Number(v))}
        />
        <Legend />
        {marks.map((m) => (
          <ReferenceLine
            key={`${m.series}:${m.runId}`}
            x={x(m)}
            stroke={meshColor(m.mesh)}
            strokeDasharray="4 3"
            // Named, not only coloured: which mesh's series changed.
            label={{
              value: meshes.length > 1 && m.mesh ? `${m.mesh} ${m.change}` : m.change,
              position: 'top',
              fontSize: 12,
            }}
          />
        ))}
        {meshes.map((m, i) => (
          <Line
            key={m}
            dataKey={`m:${m}`}
            name={m}
            stroke={meshColor(m)}
            // A dash of its own beside the colour, shown in the legend with the name.
            strokeDasharray={MESH_DASHES[i % MESH_DASHES.length]}
            legendType="plainline"
            connectNulls
            isAnimationActive={false}
            dot
          />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
}
