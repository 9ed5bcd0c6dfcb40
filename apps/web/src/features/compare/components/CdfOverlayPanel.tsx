// Every run's convergence curve on one chart, on a linear or log time axis.
import type { CdfPoint } from '@meshbench/schema';
import { useId, useMemo } from 'react';
import { CdfOverlayChart } from '../../../charts/CdfOverlayChart.tsx';
import { prepareCdfOverlay } from '../../../charts/prepare/cdf-overlay.ts';
import { formatDuration, formatPercent } from '../../../charts/prepare/format.ts';
import { AfterFirstPaint } from '../../../ui/AfterFirstPaint.tsx';
import { ChartTable } from '../../../ui/ChartTable.tsx';
import { ScaleToggle } from '../../../ui/ScaleToggle.tsx';
import { useUrlScale } from '../../../ui/url-state.ts';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import { SeriesLegend } from './SeriesLegend.tsx';

export function CdfOverlayPanel({
  runs,
  cdfs,
  withinMs,
}: {
  runs: ComparedRun[];
  /** One per run; null for a run without this change. */
  cdfs: (CdfPoint[] | null)[];
  withinMs: number | undefined;
}) {
  // Bodies under a second, tails of minutes: log shows both.
  const [scale, setScale] = useUrlScale('compare-convergence', 'log');
  const overlay = useMemo(
    () =>
      prepareCdfOverlay(
        runs.flatMap((r, i) => {
          const cdf = cdfs[i];
          return cdf ? [{ key: r.key, cdf }] : [];
        }),
        scale,
        withinMs,
      ),
    [runs, cdfs, scale, withinMs],
  );
  const tableId = useId();
  const drawn = overlay ? runs.filter((r) => overlay.keys.includes(r.key)) : [];
  return (
    <div className="panel" data-testid="cdf-overlay-panel">
      <div className="panel-head">
        <div>
          <h3>Convergence</h3>
          <p className="panel-sub">Share of the expected proxies updated, every run</p>
        </div>
        <ScaleToggle name="compare-convergence" value={scale} onChange={setScale} />
      </div>
      <div
        className="chart-box chart-box-tall"
        data-testid="cdf-overlay-chart"
        data-scale={scale}
        aria-describedby={overlay ? tableId : undefined}
      >
        {overlay ? (
          <AfterFirstPaint>
            <CdfOverlayChart overlay={overlay} series={runs} />
          </AfterFirstPaint>
        ) : (
          <p className="state">No applications to draw.</p>
        )}
      </div>
      <SeriesLegend
        runs={runs}
        note={(r) =>
          overlay?.finalPercent[r.key] !== undefined
            ? `${formatPercent((overlay.finalPercent[r.key] as number) / 100)} at the end`
            : 'no data'
        }
      />
      {overlay && (
        <ChartTable
          id={tableId}
          testId="cdf-overlay-table"
          summary="Convergence as a table: share updated per run"
          columns={['time', ...drawn.map((r) => r.label)]}
          rows={overlay.rows.map((row) => ({
            key: String(row.ms),
            cells: [
              formatDuration(row.ms),
              ...drawn.map((r) => formatPercent((row[r.key] as number) / 100)),
            ],
          }))}
        />
      )}
    </div>
  );
}
