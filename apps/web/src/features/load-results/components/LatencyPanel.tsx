// (a) Latency per mode (per run and mode when runs are overlaid) along concurrent connections
// at one rate, as the Istio data-plane guide draws it, or along the rate achieved at one
// connection count: the latency-vs-throughput curve and its knee.
import { useMemo } from 'react';
import { durationTickFormatter } from '../../../charts/prepare/duration.ts';
import { formatCount, formatMs } from '../../../charts/prepare/format.ts';
import { formatRpsCell } from '../../../charts/prepare/load-format.ts';
import { prepareLatencyVsConnections } from '../../../charts/prepare/load-latency.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { AccuracyLegend, MarkedValue } from '../../../ui/PercentileValue.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import { atSlice, type LoadPanelProps, useLoadRuns, xAxisOf } from './panel-props.ts';
import { SeriesKey } from './SeriesKey.tsx';

export function LatencyPanel({
  data,
  axis = 'connections',
  sliceKey,
  percentile = 90,
  percentiles = [50, 90, 99],
}: LoadPanelProps & { percentiles?: readonly number[] }) {
  const { runs, slice, sliceLabel, overlay } = useLoadRuns(data, axis, sliceKey);
  const prepared = useMemo(
    () => prepareLatencyVsConnections(runs, slice, percentile, percentiles),
    [runs, slice, percentile, percentiles],
  );
  const x = xAxisOf(axis);
  const configs = prepared.table.some((r) => r.config !== null);
  const onePoint = prepared.lines !== null && prepared.lines.rows.length === 1;
  return (
    <LoadPanel
      testId="latency"
      title={`P${percentile} latency vs ${axis === 'connections' ? 'connections' : 'RPS'}`}
      sub={`${atSlice(sliceLabel)}, per mode${configs ? ' and configuration' : ''}`}
      chart={
        prepared.lines && (
          <>
            <SeriesKey series={prepared.lines.series} />
            <SeriesLineChart
              lines={prepared.lines}
              {...x}
              formatY={formatMs}
              formatYTick={durationTickFormatter(prepared.lines.y.ticks)}
            />
          </>
        )
      }
      empty={`No point ${axis === 'connections' ? 'at this rate' : 'at this connection count'} has a P${percentile}.`}
      note={
        onePoint
          ? `One point per line ${axis === 'connections' ? 'at this rate: try the RPS axis' : 'at this connection count: try the connections axis'}`
          : prepared.repeated > 0
            ? `${formatCount(prepared.repeated)} point(s) repeated: each drawn at the median of its repeats, their P${percentile} range in the table`
            : undefined
      }
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: configs ? 'Mode · config' : 'Mode' },
        { label: 'Connections', num: true },
        { label: 'Target RPS', num: true },
        { label: 'Achieved RPS', num: true },
        ...percentiles.map((p) => ({ label: `P${p}`, num: true })),
        { label: 'Requests', num: true },
        ...(prepared.repeated > 0 ? [{ label: `Repeats (P${percentile} range)`, num: true }] : []),
      ]}
      rows={prepared.table.map((r) => ({
        key: `${r.run}|${r.series}|${r.x}`,
        attrs: {
          'data-testid': 'latency-row',
          'data-mode': r.mode,
          'data-config': r.config ?? '',
          'data-repeats': String(r.repeats),
          'data-connections': String(r.connections),
          'data-x': String(r.x),
        },
        cells: [
          ...(overlay ? [r.run] : []),
          r.series,
          formatCount(r.connections),
          formatRpsCell(r.targetRps),
          formatRpsCell(r.achievedRps),
          ...r.percentiles.map((p) => <MarkedValue key={`p${p.p}`} marked={p.marked} />),
          formatCount(r.requests),
          ...(prepared.repeated > 0
            ? [
                r.range
                  ? `${r.repeats}× (${formatMs(r.range.min)} – ${formatMs(r.range.max)})`
                  : r.repeats > 1
                    ? `${r.repeats}×`
                    : '1',
              ]
            : []),
        ],
      }))}
      legend={
        <AccuracyLegend
          certainties={prepared.table.flatMap((r) => r.percentiles.map((p) => p.marked.certainty))}
        />
      }
    />
  );
}
