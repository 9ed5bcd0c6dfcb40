// (b) What the sidecars add: each mode's latency minus the baseline's at the same
// connections and rate (Istio: "subtract base from both").
import { useMemo } from 'react';
import { durationTickFormatter } from '../../../charts/prepare/duration.ts';
import { formatCount, formatDurationDelta, formatPercent } from '../../../charts/prepare/format.ts';
import { prepareAddedLatency } from '../../../charts/prepare/load-added-latency.ts';
import { formatRpsCell } from '../../../charts/prepare/load-format.ts';
import { FROM_ESTIMATE, markDerived } from '../../../charts/prepare/percentile-accuracy.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { AccuracyLegend, MarkedValue } from '../../../ui/PercentileValue.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import { atSlice, type LoadPanelProps, useLoadRuns, xAxisOf } from './panel-props.ts';
import { SeriesKey } from './SeriesKey.tsx';

export function AddedLatencyPanel({
  data,
  axis = 'connections',
  sliceKey,
  percentile = 90,
}: LoadPanelProps) {
  const { runs, slice, sliceLabel, overlay } = useLoadRuns(data, axis, sliceKey);
  const prepared = useMemo(
    () => prepareAddedLatency(runs, slice, percentile),
    [runs, slice, percentile],
  );
  return (
    <LoadPanel
      testId="added-latency"
      title={`Added P${percentile} latency over baseline`}
      sub={`${atSlice(sliceLabel)}: the mode's P${percentile} minus the baseline's at the same connections`}
      chart={
        prepared.lines && (
          <>
            <SeriesKey series={prepared.lines.series} />
            <SeriesLineChart
              lines={prepared.lines}
              {...xAxisOf(axis)}
              formatY={formatDurationDelta}
              formatYTick={durationTickFormatter(prepared.lines.y.ticks)}
            />
          </>
        )
      }
      empty={
        prepared.hasBaseline
          ? 'No proxied point at the connections the baseline was run at.'
          : 'No baseline (no-proxy) points at this rate to subtract.'
      }
      note={
        prepared.withoutBaseline > 0
          ? `${formatCount(prepared.withoutBaseline)} point(s) without a baseline at their connections not shown`
          : undefined
      }
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: 'Mode' },
        { label: 'Connections', num: true },
        ...(axis === 'rps' ? [{ label: 'RPS', num: true }] : []),
        { label: `P${percentile}`, num: true },
        { label: 'Baseline', num: true },
        { label: 'Added', num: true },
        { label: 'Added (% of baseline)', num: true },
      ]}
      rows={prepared.table.map((r) => ({
        key: `${r.run}|${r.mode}|${r.x}`,
        attrs: {
          'data-testid': 'added-row',
          'data-mode': r.mode,
          'data-connections': String(r.connections),
        },
        cells: [
          ...(overlay ? [r.run] : []),
          r.mode,
          formatCount(r.connections),
          ...(axis === 'rps' ? [formatRpsCell(r.x)] : []),
          <MarkedValue key="ms" marked={r.marked.ms} />,
          <MarkedValue key="baseline" marked={r.marked.baselineMs} />,
          <span key="added" title={r.addedFromEstimate ? FROM_ESTIMATE : undefined}>
            {markDerived(formatDurationDelta(r.addedMs), r.addedFromEstimate)}
          </span>,
          <span key="added-pct" title={r.addedFromEstimate ? FROM_ESTIMATE : undefined}>
            {markDerived(formatPercent(r.addedFraction), r.addedFromEstimate)}
          </span>,
        ],
      }))}
      legend={
        <AccuracyLegend
          certainties={prepared.table.flatMap((r) => [
            r.marked.ms.certainty,
            r.marked.baselineMs.certainty,
          ])}
        />
      }
    />
  );
}
