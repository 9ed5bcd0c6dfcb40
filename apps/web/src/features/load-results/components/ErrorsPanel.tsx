// (e) Errors as a rate: failed requests as a share of the requests sent, per mode along the
// slice's axis; the counts on hover and in the table, with their status codes.
import { useMemo } from 'react';
import { formatCount, formatPercent } from '../../../charts/prepare/format.ts';
import { countKeys, prepareErrors } from '../../../charts/prepare/load-errors.ts';
import {
  formatErrorRate,
  formatErrorRateTick,
  formatRpsCell,
} from '../../../charts/prepare/load-format.ts';
import type { SeriesRow } from '../../../charts/prepare/load-results.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import { atSlice, type LoadPanelProps, useLoadRuns, xAxisOf } from './panel-props.ts';
import { SeriesKey } from './SeriesKey.tsx';

function counts(key: string, row: SeriesRow): string | null {
  const k = countKeys(key);
  const errors = row[k.errors];
  const requests = row[k.requests];
  return typeof errors === 'number' && typeof requests === 'number'
    ? `${formatCount(errors)} of ${formatCount(requests)} requests`
    : null;
}

export function ErrorsPanel({
  data,
  axis = 'connections',
  sliceKey,
}: Omit<LoadPanelProps, 'percentile'>) {
  const { runs, slice, sliceLabel, overlay } = useLoadRuns(data, axis, sliceKey);
  const prepared = useMemo(() => prepareErrors(runs, slice), [runs, slice]);
  return (
    <LoadPanel
      testId="errors"
      title="Error rate"
      sub={`${atSlice(sliceLabel)}: % of requests that failed; ${formatCount(prepared.total)} failed in all`}
      chart={
        prepared.lines && (
          <>
            <SeriesKey series={prepared.lines.series} />
            <SeriesLineChart
              lines={prepared.lines}
              {...xAxisOf(axis)}
              formatY={formatErrorRate}
              formatYTick={formatErrorRateTick}
              yWidth={64}
              describePoint={counts}
            />
          </>
        )
      }
      empty="No point here counts both its errors and its requests."
      note={
        prepared.withoutRequests > 0
          ? `${formatCount(prepared.withoutRequests)} point(s) count errors but not requests: in the table only`
          : undefined
      }
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: 'Mode' },
        { label: 'Connections', num: true },
        ...(axis === 'rps' ? [{ label: 'RPS', num: true }] : []),
        { label: 'Requests', num: true },
        { label: 'Errors', num: true },
        { label: 'Error rate', num: true },
        { label: 'By code' },
      ]}
      rows={prepared.table.map((r) => ({
        key: `${r.run}|${r.mode}|${r.x}`,
        marked: r.errors > 0,
        attrs: { 'data-testid': 'errors-row', 'data-mode': r.mode },
        cells: [
          ...(overlay ? [r.run] : []),
          r.mode,
          formatCount(r.connections),
          ...(axis === 'rps' ? [formatRpsCell(r.x)] : []),
          formatCount(r.requests),
          formatCount(r.errors),
          r.fraction === null ? formatPercent(null) : formatErrorRate(r.fraction * 100),
          r.byCode.length === 0
            ? '—'
            : r.byCode.map((c) => `${c.code} × ${formatCount(c.count)}`).join(', '),
        ],
      }))}
    />
  );
}
