// (a) Latency against concurrent connections at one rate, a line per mode (per run and mode
// when runs are overlaid): the Istio data-plane guide's charts.
import { useMemo } from 'react';
import { formatCount, formatDuration, formatMs } from '../../../charts/prepare/format.ts';
import { formatRpsCell } from '../../../charts/prepare/load-format.ts';
import { prepareLatencyVsConnections } from '../../../charts/prepare/load-latency.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { AccuracyLegend, MarkedValue } from '../../../ui/PercentileValue.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import {
  connectionsLabel,
  connectionsTick,
  type LoadPanelProps,
  useLoadRuns,
} from './panel-props.ts';
import { SeriesKey } from './SeriesKey.tsx';

export function LatencyVsConnectionsPanel({ data, rateKey, percentile = 90 }: LoadPanelProps) {
  const { runs, rate, rateLabel, overlay } = useLoadRuns(data, rateKey);
  const prepared = useMemo(
    () => prepareLatencyVsConnections(runs, rate, percentile),
    [runs, rate, percentile],
  );
  return (
    <LoadPanel
      testId="latency-connections"
      title={`P${percentile} latency vs connections`}
      sub={`At ${rateLabel}, per mode`}
      chart={
        prepared.lines && (
          <>
            <SeriesKey series={prepared.lines.series} />
            <SeriesLineChart
              lines={prepared.lines}
              xLabel="concurrent connections"
              formatX={connectionsLabel}
              formatXTick={connectionsTick}
              formatY={formatMs}
              formatYTick={formatDuration}
            />
          </>
        )
      }
      empty={`No point at this rate has a P${percentile}.`}
      note={
        prepared.superseded > 0
          ? `${formatCount(prepared.superseded)} repeated point(s) replaced by the later import`
          : undefined
      }
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: 'Mode' },
        { label: 'Connections', num: true },
        { label: 'Target RPS', num: true },
        { label: 'Achieved RPS', num: true },
        { label: 'P50', num: true },
        { label: 'P90', num: true },
        { label: 'P99', num: true },
        { label: 'Requests', num: true },
      ]}
      rows={prepared.table.map((r) => ({
        key: `${r.run}|${r.mode}|${r.connections}`,
        attrs: {
          'data-testid': 'latency-row',
          'data-mode': r.mode,
          'data-connections': String(r.connections),
        },
        cells: [
          ...(overlay ? [r.run] : []),
          r.mode,
          formatCount(r.connections),
          formatRpsCell(r.targetRps),
          formatRpsCell(r.achievedRps),
          <MarkedValue key="p50" marked={r.marked.p50} />,
          <MarkedValue key="p90" marked={r.marked.p90} />,
          <MarkedValue key="p99" marked={r.marked.p99} />,
          formatCount(r.requests),
        ],
      }))}
      legend={
        <AccuracyLegend
          certainties={prepared.table.flatMap((r) => [
            r.marked.p50.certainty,
            r.marked.p90.certainty,
            r.marked.p99.certainty,
          ])}
        />
      }
    />
  );
}
