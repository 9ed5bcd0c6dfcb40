// (e) Failed requests per point, by connections and mode, with their status codes.
import { useMemo } from 'react';
import { formatCount, formatPercent } from '../../../charts/prepare/format.ts';
import { prepareErrors } from '../../../charts/prepare/load-errors.ts';
import { SeriesBarChart } from '../../../charts/SeriesBarChart.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import {
  connectionsLabel,
  connectionsTick,
  type LoadPanelProps,
  useLoadRuns,
} from './panel-props.ts';
import { SeriesKey } from './SeriesKey.tsx';

export function ErrorsPanel({ data, rateKey }: Omit<LoadPanelProps, 'percentile'>) {
  const { runs, rate, rateLabel, overlay } = useLoadRuns(data, rateKey);
  const prepared = useMemo(() => prepareErrors(runs, rate), [runs, rate]);
  return (
    <LoadPanel
      testId="errors"
      title="Errors"
      sub={`At ${rateLabel}: ${formatCount(prepared.total)} failed request(s) in all`}
      chart={
        prepared.bars && (
          <>
            <SeriesKey series={prepared.bars.series} />
            <SeriesBarChart
              bars={prepared.bars}
              xLabel="concurrent connections"
              formatX={connectionsLabel}
              formatXTick={connectionsTick}
              formatY={formatCount}
            />
          </>
        )
      }
      empty="No point at this rate counts its errors."
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: 'Mode' },
        { label: 'Connections', num: true },
        { label: 'Requests', num: true },
        { label: 'Errors', num: true },
        { label: 'Error rate', num: true },
        { label: 'By code' },
      ]}
      rows={prepared.table.map((r) => ({
        key: `${r.run}|${r.mode}|${r.connections}`,
        marked: r.errors > 0,
        attrs: { 'data-testid': 'errors-row', 'data-mode': r.mode },
        cells: [
          ...(overlay ? [r.run] : []),
          r.mode,
          formatCount(r.connections),
          formatCount(r.requests),
          formatCount(r.errors),
          formatPercent(r.fraction),
          r.byCode.length === 0
            ? '—'
            : r.byCode.map((c) => `${c.code} × ${formatCount(c.count)}`).join(', '),
        ],
      }))}
    />
  );
}
