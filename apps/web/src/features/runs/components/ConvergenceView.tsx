// A change's convergence curve: the share of expected proxies updated over time since the
// change. A view: the run page's change sections and a report's frozen ones.
import type { Propagation } from '@meshbench/schema';
import { type ReactNode, useMemo } from 'react';
import { ConvergenceChart } from '../../../charts/ConvergenceChart.tsx';
import { prepareCdf } from '../../../charts/prepare/cdf.ts';
import { formatCount, formatPercent } from '../../../charts/prepare/format.ts';
import { AfterFirstPaint } from '../../../ui/AfterFirstPaint.tsx';
import { ScaleToggle } from '../../../ui/ScaleToggle.tsx';
import { useUrlScale } from '../../../ui/url-state.ts';

export function ConvergenceView({
  summary,
  color,
  name,
  testIds,
  deferred = false,
  emptyNote,
  children,
}: {
  summary: Pick<Propagation, 'cdf' | 'withinMs' | 'expected'>;
  color: string;
  /** The scale toggle's name, unique on the page; its scale is `?<name>Scale=` (see url-state). */
  name: string;
  testIds: { panel?: string; chart: string };
  /** Drawn a frame after the numbers around it (see AfterFirstPaint). */
  deferred?: boolean;
  /** The note under an empty chart. */
  emptyNote: string;
  /** Below the chart (its data as CSV and a table). */
  children?: ReactNode;
}) {
  // The tail runs to minutes while the body is under a second: log shows both.
  const [scale, setScale] = useUrlScale(name, 'log');
  const cdf = useMemo(
    () => prepareCdf(summary.cdf, scale, summary.withinMs),
    [summary.cdf, summary.withinMs, scale],
  );
  const of =
    summary.expected === null
      ? 'proxies that applied it'
      : `${formatCount(summary.expected)} expected proxies`;
  const chart = cdf && <ConvergenceChart cdf={cdf} color={color} />;
  return (
    <div className="panel" data-testid={testIds.panel}>
      <div className="panel-head">
        <div>
          <h3>Convergence</h3>
          <p className="panel-sub">Share of the {of} updated</p>
        </div>
        <ScaleToggle name={name} value={scale} onChange={setScale} />
      </div>
      <div className="chart-box" data-testid={testIds.chart} data-scale={scale}>
        {chart ? (
          deferred ? (
            <AfterFirstPaint>{chart}</AfterFirstPaint>
          ) : (
            chart
          )
        ) : (
          <p className="state">No applications to draw.</p>
        )}
      </div>
      <p className="chart-note">
        {cdf
          ? `${formatPercent(cdf.finalPercent / 100)} updated by the last observation`
          : emptyNote}
      </p>
      {children}
    </div>
  );
}
