// (c) Proxy CPU (cores) and memory (MiB) against the request rate, client and server side,
// from the points that measured them (e.g. Istio's perf CSV).
import { useMemo } from 'react';
import { formatCount } from '../../../charts/prepare/format.ts';
import { formatCores, formatMiB, formatRpsCell } from '../../../charts/prepare/load-format.ts';
import {
  prepareProxyResources,
  type ResourceRow,
} from '../../../charts/prepare/load-proxy-resources.ts';
import { asRuns, formatRps, type LoadResultsInput } from '../../../charts/prepare/load-results.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import { SeriesKey } from './SeriesKey.tsx';

const rpsLabel = (x: number) => `${formatRps(x)} RPS`;

function rowCells(r: ResourceRow, overlay: boolean, metric: 'cpu' | 'memory') {
  const [client, server, format] =
    metric === 'cpu'
      ? [r.clientCpuCores, r.serverCpuCores, formatCores]
      : [r.clientMemMiB, r.serverMemMiB, formatMiB];
  return {
    key: `${r.run}|${r.mode}|${r.connections}|${r.rps}`,
    attrs: { 'data-testid': `${metric}-row`, 'data-rps': String(r.rps) },
    cells: [
      ...(overlay ? [r.run] : []),
      r.mode,
      formatCount(r.connections),
      formatRpsCell(r.rps),
      format(client),
      format(server),
    ],
  };
}

function ResourcePanel({ data, metric }: { data: LoadResultsInput; metric: 'cpu' | 'memory' }) {
  const runs = useMemo(() => asRuns(data), [data]);
  const prepared = useMemo(() => prepareProxyResources(runs), [runs]);
  const overlay = runs.length > 1;
  const lines = metric === 'cpu' ? prepared.cpu : prepared.memory;
  const unit = metric === 'cpu' ? 'cores' : 'MiB';
  const format = metric === 'cpu' ? formatCores : formatMiB;
  const rows = prepared.table.filter((r) =>
    metric === 'cpu'
      ? r.clientCpuCores !== null || r.serverCpuCores !== null
      : r.clientMemMiB !== null || r.serverMemMiB !== null,
  );
  return (
    <LoadPanel
      testId={metric === 'cpu' ? 'proxy-cpu' : 'proxy-memory'}
      title={metric === 'cpu' ? 'Proxy CPU vs rate' : 'Proxy memory vs rate'}
      sub={`Average ${unit} of the client and server sidecars, by the rate achieved${prepared.context ? ` (${prepared.context})` : ''}`}
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
      empty={`No point measured proxy ${metric === 'cpu' ? 'CPU' : 'memory'}.`}
      columns={[
        ...(overlay ? [{ label: 'Run' }] : []),
        { label: 'Mode' },
        { label: 'Connections', num: true },
        { label: 'RPS', num: true },
        { label: `Client (${unit})`, num: true },
        { label: `Server (${unit})`, num: true },
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
