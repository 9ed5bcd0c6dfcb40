// (c) Proxy CPU (cores) and memory (MiB) against the request rate, client and server side,
// from the points that measured them (e.g. Istio's perf CSV): the peak (what the Istio guide
// quotes) or the mean, the table holding both; the statistic picked is in the URL
// (`?cpuStat=mean`, `?memoryStat=max`).
import { useCallback, useMemo } from 'react';
import { formatCount } from '../../../charts/prepare/format.ts';
import { formatCores, formatMiB, formatRpsCell } from '../../../charts/prepare/load-format.ts';
import {
  prepareProxyResources,
  type ResourceRow,
  type ResourceStat,
} from '../../../charts/prepare/load-proxy-resources.ts';
import { asRuns, formatRps, type LoadResultsInput } from '../../../charts/prepare/load-results.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { useUrlParam, withParam } from '../../../ui/url-state.ts';
import { LoadPanel } from './LoadPanel.tsx';
import { rpsLabel } from './panel-props.ts';
import { SeriesKey } from './SeriesKey.tsx';

type Metric = 'cpu' | 'memory';

function values(r: ResourceRow, metric: Metric) {
  return metric === 'cpu'
    ? [r.clientCpuCores, r.clientCpuCoresMax, r.serverCpuCores, r.serverCpuCoresMax]
    : [r.clientMemMiB, r.clientMemMiBMax, r.serverMemMiB, r.serverMemMiBMax];
}

function rowCells(r: ResourceRow, overlay: boolean, metric: Metric) {
  const format = metric === 'cpu' ? formatCores : formatMiB;
  return {
    key: `${r.run}|${r.mode}|${r.connections}|${r.rps}`,
    attrs: { 'data-testid': `${metric}-row`, 'data-rps': String(r.rps) },
    cells: [
      ...(overlay ? [r.run] : []),
      r.mode,
      formatCount(r.connections),
      formatRpsCell(r.rps),
      ...values(r, metric).map((v) => format(v)),
    ],
  };
}

function ResourcePanel({ data, metric }: { data: LoadResultsInput; metric: Metric }) {
  const runs = useMemo(() => asRuns(data), [data]);
  const key = `${metric}Stat`;
  const [choice, setChoice] = useUrlParam(
    useCallback(
      (s: URLSearchParams): ResourceStat | null => {
        const v = s.get(key);
        return v === 'max' || v === 'mean' ? v : null;
      },
      [key],
    ),
    useCallback((s: URLSearchParams, v: ResourceStat | null) => withParam(s, key, v), [key]),
  );
  const hasMax = useMemo(() => prepareProxyResources(runs, 'max').hasMax[metric], [runs, metric]);
  // The peak when the points report one (the seed quotes the maximum), else the mean.
  const stat: ResourceStat = choice ?? (hasMax ? 'max' : 'mean');
  const prepared = useMemo(() => prepareProxyResources(runs, stat), [runs, stat]);
  const overlay = runs.length > 1;
  const lines = metric === 'cpu' ? prepared.cpu : prepared.memory;
  const unit = metric === 'cpu' ? 'cores' : 'MiB';
  const format = metric === 'cpu' ? formatCores : formatMiB;
  const rows = prepared.table.filter((r) => values(r, metric).some((v) => v !== null));
  const what = metric === 'cpu' ? 'CPU' : 'memory';
  return (
    <LoadPanel
      testId={metric === 'cpu' ? 'proxy-cpu' : 'proxy-memory'}
      title={`Proxy ${what} vs rate`}
      sub={`${stat === 'max' ? 'Peak' : 'Mean'} ${unit} of the client and server sidecars, by the rate achieved${prepared.context ? ` (${prepared.context})` : ''}`}
      controls={
        <fieldset className="segmented" aria-label={`proxy ${what} statistic`}>
          {(['max', 'mean'] as const).map((s) => (
            <button
              key={s}
              type="button"
              aria-pressed={stat === s}
              disabled={s === 'max' && !hasMax}
              title={s === 'max' && !hasMax ? 'No point reports a peak' : undefined}
              data-testid={`${metric}-stat-${s}`}
              onClick={() => setChoice(s)}
            >
              {s}
            </button>
          ))}
        </fieldset>
      }
      chart={
        lines && (
          <>
            <SeriesKey series={lines.series} />
            <SeriesLineChart
              lines={lines}
              xLabel="requests per second"
              formatX={rpsLabel}
              formatXTick={formatRps}
              formatY={(v) => `${format(v)} ${unit}`}
              formatYTick={formatCores}
            />
          </>
        )
      }
      empty={`No point measured the ${stat === 'max' ? 'peak' : 'mean'} proxy ${what}.`}
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: 'Mode' },
        { label: 'Connections', num: true },
        { label: 'RPS', num: true },
        { label: `Client mean (${unit})`, num: true },
        { label: `Client max (${unit})`, num: true },
        { label: `Server mean (${unit})`, num: true },
        { label: `Server max (${unit})`, num: true },
      ]}
      rows={rows.map((r) => rowCells(r, overlay, metric))}
    />
  );
}

export function ProxyCpuPanel({ data }: { data: LoadResultsInput }) {
  return <ResourcePanel data={data} metric="cpu" />;
}

export function ProxyMemoryPanel({ data }: { data: LoadResultsInput }) {
  return <ResourcePanel data={data} metric="memory" />;
}
