// The convergence curve of one change: the share of expected proxies updated over time.
import type { HistogramScale, Propagation } from '@meshbench/schema';
import { useMemo, useState } from 'react';
import { propagationUrl } from '../../../api/urls.ts';
import { ConvergenceChart } from '../../../charts/ConvergenceChart.tsx';
import { prepareCdf } from '../../../charts/prepare/cdf.ts';
import { formatCount, formatMsValue, formatPercent } from '../../../charts/prepare/format.ts';
import { AfterFirstPaint } from '../../../ui/AfterFirstPaint.tsx';
import { ScaleToggle } from '../../../ui/ScaleToggle.tsx';
import { SUMMARY_PARAMS } from '../hooks/use-propagation.ts';
import { ChartData } from './ChartData.tsx';

export function ConvergencePanel({
  runId,
  summary,
  color,
}: {
  runId: string;
  summary: Propagation;
  color: string;
}) {
  // The tail runs to minutes while the body is under a second: log shows both.
  const [scale, setScale] = useState<HistogramScale>('log');
  const cdf = useMemo(
    () => prepareCdf(summary.cdf, scale, summary.withinMs),
    [summary.cdf, summary.withinMs, scale],
  );
  const of =
    summary.expected === null
      ? 'proxies that applied it'
      : `${formatCount(summary.expected)} expected proxies`;
  return (
    <div className="panel" data-testid="convergence-panel">
      <div className="panel-head">
        <div>
          <h3>Convergence</h3>
          <p className="panel-sub">Share of the {of} updated</p>
        </div>
        <ScaleToggle name="convergence" value={scale} onChange={setScale} />
      </div>
      <div className="chart-box" data-testid="convergence-chart" data-scale={scale}>
        {cdf ? (
          <AfterFirstPaint>
            <ConvergenceChart cdf={cdf} color={color} />
          </AfterFirstPaint>
        ) : (
          <p className="state">No applications to draw.</p>
        )}
      </div>
      <p className="chart-note">
        {cdf
          ? `${formatPercent(cdf.finalPercent / 100)} updated by the last observation`
          : '\u00a0'}
      </p>
      <ChartData
        testId="convergence"
        csvUrl={propagationUrl(runId, summary.change.id, { ...SUMMARY_PARAMS, format: 'csv' })}
        columns={['time (ms)', 'updated']}
        rows={summary.cdf.map((c) => [formatMsValue(c.ms), formatPercent(c.fraction)])}
      />
    </div>
  );
}
