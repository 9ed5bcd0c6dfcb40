// A run with two changes or more (a churn test): the per-change table, the pooled and the
// per-change P99 distributions side by side, and the change x time-since-change heatmap.
// Choosing a change (row or cell) opens its propagation below, through the page's URL.
import type { HistogramScale, RunPropagation } from '@meshbench/schema';
import { useEffect } from 'react';
import { ChurnHeatmapChart } from '../../../charts/ChurnHeatmapChart.tsx';
import { prepareHeatmap } from '../../../charts/prepare/churn-heatmap.ts';
import { formatCount } from '../../../charts/prepare/format.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { ScaleToggle } from '../../../ui/ScaleToggle.tsx';
import {
  type ChurnOptions,
  runPropagationParams,
  runPropagationUrl,
  useRunPropagation,
} from '../hooks/use-run-propagation.ts';
import { ChurnChangeTable } from './ChurnChangeTable.tsx';
import { ChurnDistributions } from './ChurnDistributions.tsx';
import './churn.css';

/** `onSettled`: called once what the section shows (the changes or an error) is on the page. */
export function ChurnSection({
  runId,
  options,
  scale,
  onScale,
  selected,
  onSelect,
  onSettled,
}: {
  runId: string;
  options: ChurnOptions;
  scale: HistogramScale;
  onScale: (scale: HistogramScale) => void;
  selected?: string | undefined;
  onSelect: (changeId: string) => void;
  onSettled?: () => void;
}) {
  const query = useRunPropagation(runId, options, scale);
  const settled = !query.isPending;
  useEffect(() => {
    if (settled) onSettled?.();
  }, [settled, onSettled]);
  return (
    <section className="churn" data-testid="churn-section" aria-labelledby="churn-h">
      <header className="change-head">
        <h2 id="churn-h">All changes</h2>
        <p className="muted">
          {query.data
            ? `${formatCount(query.data.changes.length)} changes, ${formatCount(query.data.pooled.count)} first applications`
            : 'Every change of the run'}
          {' — '}
          <a href={runPropagationUrl(runId, runPropagationParams(options, scale))}>Data as JSON</a>
        </p>
      </header>
      {query.isPending ? (
        <Loading what="changes" />
      ) : query.isError ? (
        <ErrorMessage error={query.error} what="the run's changes" />
      ) : (
        <ChurnView
          data={query.data}
          scale={scale}
          onScale={onScale}
          selected={selected}
          onSelect={onSelect}
        />
      )}
    </section>
  );
}

/** What ChurnSection shows once it has the answer; it fetches nothing. */
export function ChurnView({
  data,
  scale,
  onScale,
  selected,
  onSelect,
}: {
  data: RunPropagation;
  scale: HistogramScale;
  onScale: (scale: HistogramScale) => void;
  selected?: string | undefined;
  onSelect: (changeId: string) => void;
}) {
  const heatmap = prepareHeatmap(data.heatmap);
  const byId = new Map(data.changes.map((c) => [c.id, c]));
  const rowLabel = (id: string) => {
    const c = byId.get(id);
    // The time of day (UTC) is enough beside the id: a churn run's changes share a day.
    return c ? `${id} · ${c.at.slice(11, 19)}` : id;
  };
  return (
    <>
      <ChurnDistributions data={data} />
      <div className="panel churn-heatmap-panel">
        <div className="panel-head">
          <h3>When each change arrived</h3>
          <ScaleToggle value={scale} onChange={onScale} name="heatmap" />
        </div>
        <p className="muted">{data.heatmap.label}; the bins are shared by every change.</p>
        {heatmap.columns.length === 0 ? (
          <p className="state">No first applications yet.</p>
        ) : (
          <ChurnHeatmapChart
            heatmap={heatmap}
            rowLabel={rowLabel}
            selected={selected}
            onSelect={onSelect}
          />
        )}
        <details className="chart-data" data-testid="heatmap-table">
          <summary>Heatmap as a table ({heatmap.rows.length} changes)</summary>
          <div className="chart-data-table">
            <table className="data compact">
              <thead>
                <tr>
                  <th>time since change</th>
                  {heatmap.rows.map((r) => (
                    <th key={r.changeId} className="num">
                      {r.changeId}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {heatmap.columns.map((col, bin) => (
                  <tr key={col.label}>
                    <th>{col.label}</th>
                    {heatmap.rows.map((r) => (
                      <td key={r.changeId} className="num">
                        {formatCount(r.cells[bin]?.count ?? 0)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </div>
      <h3 className="churn-table-title">Per change</h3>
      <ChurnChangeTable data={data} selected={selected} onSelect={onSelect} />
    </>
  );
}
