// (f) The tail band: P99 / P50 per point against a limit (the 500k-RPS Istio test held P99
// under 5x the median); the points that reach it are marked.
import { useMemo } from 'react';
import { formatCount } from '../../../charts/prepare/format.ts';
import { formatRatio, formatRpsCell } from '../../../charts/prepare/load-format.ts';
import { DEFAULT_TAIL_BAND_LIMIT } from '../../../charts/prepare/load-results.ts';
import { prepareTailBand } from '../../../charts/prepare/load-tail-band.ts';
import { FROM_ESTIMATE, markDerived } from '../../../charts/prepare/percentile-accuracy.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { AccuracyLegend, MarkedValue } from '../../../ui/PercentileValue.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import { atSlice, type LoadPanelProps, useLoadRuns, xAxisOf } from './panel-props.ts';
import { SeriesKey } from './SeriesKey.tsx';

export function TailBandPanel({
  data,
  axis = 'connections',
  sliceKey,
  limit = DEFAULT_TAIL_BAND_LIMIT,
  onLimitChange,
}: Omit<LoadPanelProps, 'percentile'> & {
  /** P99 must stay under limit x P50. */
  limit?: number;
  /** Given: the panel shows an input for the limit. */
  onLimitChange?: (limit: number) => void;
}) {
  const { runs, slice, sliceLabel, overlay } = useLoadRuns(data, axis, sliceKey);
  const prepared = useMemo(() => prepareTailBand(runs, slice, limit), [runs, slice, limit]);
  return (
    <LoadPanel
      testId="tail-band"
      title="Tail band: P99 / P50"
      sub={`${atSlice(sliceLabel)}: ${formatCount(prepared.over)} of ${formatCount(prepared.table.length)} point(s) reach ${formatRatio(limit)}`}
      controls={
        onLimitChange && (
          <label className="band-limit">
            limit
            <input
              type="number"
              min={1}
              step={0.5}
              value={limit}
              data-testid="tail-band-limit"
              onChange={(e) => {
                const v = Number(e.currentTarget.value);
                if (Number.isFinite(v) && v > 0) onLimitChange(v);
              }}
            />
            ×
          </label>
        )
      }
      chart={
        prepared.lines && (
          <>
            <SeriesKey series={prepared.lines.series} />
            <SeriesLineChart
              lines={prepared.lines}
              {...xAxisOf(axis)}
              formatY={formatRatio}
              formatYTick={(v) => `${v}×`}
              referenceY={[{ y: limit, label: `limit ${formatRatio(limit)}` }]}
            />
          </>
        )
      }
      empty="No point at this rate has both P50 and P99."
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: 'Mode' },
        { label: 'Connections', num: true },
        ...(axis === 'rps' ? [{ label: 'RPS', num: true }] : []),
        { label: 'P50', num: true },
        { label: 'P99', num: true },
        { label: 'P99 / P50', num: true },
        { label: 'Within limit' },
      ]}
      rows={prepared.table.map((r) => ({
        key: `${r.run}|${r.mode}|${r.x}`,
        marked: r.over,
        attrs: { 'data-testid': 'tail-band-row', 'data-over': String(r.over) },
        cells: [
          ...(overlay ? [r.run] : []),
          r.mode,
          formatCount(r.connections),
          ...(axis === 'rps' ? [formatRpsCell(r.x)] : []),
          <MarkedValue key="p50" marked={r.marked.p50} />,
          <MarkedValue key="p99" marked={r.marked.p99} />,
          <span key="ratio" title={r.ratioFromEstimate ? FROM_ESTIMATE : undefined}>
            {markDerived(formatRatio(r.ratio), r.ratioFromEstimate)}
          </span>,
          r.over ? 'no' : 'yes',
        ],
      }))}
      legend={
        <AccuracyLegend
          certainties={prepared.table.flatMap((r) => [
            r.marked.p50.certainty,
            r.marked.p99.certainty,
          ])}
        />
      }
    />
  );
}
