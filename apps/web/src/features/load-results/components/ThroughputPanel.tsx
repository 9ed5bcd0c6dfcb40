// (d) Did the load generator keep up: the achieved rate as a share of the target, per mode.
import { useMemo } from 'react';
import { formatCount, formatPercent } from '../../../charts/prepare/format.ts';
import { formatRpsCell } from '../../../charts/prepare/load-format.ts';
import { prepareThroughput } from '../../../charts/prepare/load-throughput.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import { atSlice, type LoadPanelProps, useLoadRuns, xAxisOf } from './panel-props.ts';
import { SeriesKey } from './SeriesKey.tsx';

export function ThroughputPanel({
  data,
  axis = 'connections',
  sliceKey,
}: Omit<LoadPanelProps, 'percentile'>) {
  const { runs, slice, sliceLabel, overlay } = useLoadRuns(data, axis, sliceKey);
  const prepared = useMemo(() => prepareThroughput(runs, slice), [runs, slice]);
  return (
    <LoadPanel
      testId="throughput"
      title="Achieved vs target rate"
      sub={`${atSlice(sliceLabel)}: achieved RPS as a share of the target`}
      chart={
        prepared.lines && (
          <>
            <SeriesKey series={prepared.lines.series} />
            <SeriesLineChart
              lines={prepared.lines}
              {...xAxisOf(axis)}
              formatY={(v) => formatPercent(v / 100)}
              formatYTick={(v) => `${v} %`}
              referenceY={[{ y: 100, label: 'target' }]}
            />
          </>
        )
      }
      empty={
        prepared.noTarget
          ? 'These points were run without a target rate.'
          : 'No point at this rate reports both rates.'
      }
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: 'Mode' },
        { label: 'Connections', num: true },
        ...(axis === 'rps' ? [{ label: 'RPS', num: true }] : []),
        { label: 'Target RPS', num: true },
        { label: 'Achieved RPS', num: true },
        { label: 'Achieved', num: true },
      ]}
      rows={prepared.table.map((r) => ({
        key: `${r.run}|${r.mode}|${r.x}`,
        attrs: { 'data-testid': 'throughput-row', 'data-mode': r.mode },
        cells: [
          ...(overlay ? [r.run] : []),
          r.mode,
          formatCount(r.connections),
          ...(axis === 'rps' ? [formatRpsCell(r.x)] : []),
          formatRpsCell(r.targetRps),
          formatRpsCell(r.achievedRps),
          formatPercent(r.fraction),
        ],
      }))}
    />
  );
}
