// The run page's stages view, for a run with interval data (the Istio 500k-RPS test's ~1k,
// 5k, 25k, 500k RPS steps): achieved rate, error rate and P50 / P99 over time with the
// "P99 < N x median" band (N in the URL), and a summary row per stage with each generator's
// rate and flags. Nothing is shown for a run without interval data.
import type { LoadStages } from '@meshbench/schema';
import { useEffect, useMemo } from 'react';
import { ReferenceArea } from 'recharts';
import { durationTickFormatter } from '../../../charts/prepare/duration.ts';
import { formatCount, formatDuration, formatMs } from '../../../charts/prepare/format.ts';
import {
  formatErrorRate,
  formatErrorRateTick,
  formatRatio,
  formatRpsCell,
} from '../../../charts/prepare/load-format.ts';
import { formatRps } from '../../../charts/prepare/load-results.ts';
import { formatClock, MEDIAN, prepareStages, TAIL } from '../../../charts/prepare/load-stages.ts';
import { FROM_ESTIMATE, markDerived } from '../../../charts/prepare/percentile-accuracy.ts';
import { SeriesLineChart } from '../../../charts/SeriesLineChart.tsx';
import { AccuracyLegend, MarkedValue } from '../../../ui/PercentileValue.tsx';
import { ErrorMessage } from '../../../ui/QueryState.tsx';
import { useLoadStages } from '../hooks/use-load-stages.ts';
import { useLoadView } from '../hooks/use-load-view.ts';
import { SeriesKey } from './SeriesKey.tsx';

const clockLabel = (s: number) => `${formatClock(s)} in`;

/**
 * The run page's container: reads the stages at the percentiles the page shows. `onSettled`:
 * called once what the section shows (the stages, an error or nothing) is on the page.
 */
export function StagesSection({ runId, onSettled }: { runId: string; onSettled?: () => void }) {
  const [view] = useLoadView();
  const stages = useLoadStages(runId, view.percentiles);
  const settled = !stages.isPending;
  useEffect(() => {
    if (settled) onSettled?.();
  }, [settled, onSettled]);
  if (stages.isError) return <ErrorMessage error={stages.error} what="the load stages" />;
  if (!stages.data) return null;
  return <StagesView stages={stages.data} />;
}

/**
 * The stages drawn from an answer in hand (the run page's, or a report's frozen copy, which
 * holds P50, P90 and P99 only: a percentile it lacks shows as none). Nothing without intervals.
 */
export function StagesView({ stages: data }: { stages: LoadStages }) {
  const [view, setView] = useLoadView();
  const shown = useMemo(
    () => [...new Set([MEDIAN, ...view.percentiles, TAIL])].sort((a, b) => a - b),
    [view.percentiles],
  );
  const prepared = useMemo(() => prepareStages(data, view.limit, shown), [data, view.limit, shown]);
  if (data.series.length === 0) return null;
  // The stages shaded, alternately, behind every chart of the section.
  const spans = prepared.spans.map((s, i) => (
    <ReferenceArea
      key={s.key}
      x1={s.fromS}
      x2={s.toS}
      fill={i % 2 === 0 ? '#eef2f9' : '#f7f8fa'}
      fillOpacity={1}
      ifOverflow="hidden"
    />
  ));
  const time = {
    xLabel: 'time since the first interval',
    formatX: clockLabel,
    formatXTick: formatClock,
    children: spans,
    dots: false,
    height: 200,
  };
  return (
    <section className="data-plane stages" data-testid="stages-section">
      <header className="change-head data-plane-head">
        <h2>Stages</h2>
        <p className="muted">
          {formatCount(data.series.length)} intervals of {formatDuration(data.intervalMs)},{' '}
          {formatCount(prepared.table.length)} stage
          {prepared.table.length === 1 ? '' : 's'}
        </p>
      </header>
      <div className="chart-grid load-grid">
        <div className="panel load-panel" data-testid="stages-rps">
          <h3>Achieved RPS</h3>
          <p className="panel-sub">
            All load generators together, per interval; stages shaded
            {prepared.rps?.y.scale === 'log' && "; log scale, a tick at each stage's target"}
          </p>
          {prepared.rps && (
            <SeriesLineChart
              lines={prepared.rps}
              {...time}
              formatY={(v) => `${formatRps(v)} RPS`}
              formatYTick={formatRps}
            />
          )}
        </div>
        {prepared.errors ? (
          <div className="panel load-panel" data-testid="stages-errors">
            <h3>Error rate</h3>
            <p className="panel-sub">% of the interval's requests that failed</p>
            <SeriesLineChart
              lines={prepared.errors}
              {...time}
              formatY={formatErrorRate}
              formatYTick={formatErrorRateTick}
              yWidth={64}
            />
          </div>
        ) : (
          // No chart: one slim line with the reason, after the charts (as LoadPanel does).
          <div
            className="panel load-panel load-panel-empty"
            data-testid="stages-errors"
            data-empty="true"
          >
            <h3>Error rate</h3>
            <p className="state">No interval counts its errors.</p>
          </div>
        )}
        <div className="panel load-panel stages-latency" data-testid="stages-latency">
          <div className="panel-head">
            <div>
              <h3>
                P{MEDIAN} and P{TAIL} over time
              </h3>
              <p className="panel-sub" data-testid="stages-band-summary">
                P{TAIL} must stay under {formatRatio(view.limit)} the median:{' '}
                {formatCount(prepared.overIntervals)} of {formatCount(prepared.bandIntervals)}{' '}
                interval(s) reach it (marked)
              </p>
            </div>
            <label className="band-limit">
              N
              <input
                type="number"
                min={1}
                step={0.5}
                value={view.limit}
                data-testid="stages-limit"
                onChange={(e) => {
                  const v = Number(e.currentTarget.value);
                  if (Number.isFinite(v) && v > 0) setView({ limit: v });
                }}
              />
              × median
            </label>
          </div>
          {prepared.latency && (
            <>
              <SeriesKey series={prepared.latency.series} />
              <SeriesLineChart
                lines={prepared.latency}
                {...time}
                height={240}
                formatY={formatMs}
                formatYTick={durationTickFormatter(prepared.latency.y.ticks)}
                describePoint={(key, row) => {
                  const m = prepared.marks.get(row.x);
                  const marked = key === 'p50' ? m?.p50 : key === 'p99' ? m?.p99 : undefined;
                  return marked?.description ?? null;
                }}
              />
            </>
          )}
        </div>
      </div>
      <div className="table-wrap">
        <table className="data compact" data-testid="stages-table">
          <thead>
            <tr>
              <th>Stage</th>
              <th className="num">Target RPS</th>
              <th className="num">Achieved RPS</th>
              {shown.map((p) => (
                <th key={p} className="num">
                  P{p}
                </th>
              ))}
              <th className="num">
                P{TAIL} / P{MEDIAN}
              </th>
              <th className="num">Error rate</th>
              <th className="num">Requests</th>
              <th>From – to</th>
              <th>Mode</th>
              <th className="num">Connections</th>
              <th>Generators</th>
            </tr>
          </thead>
          <tbody>
            {prepared.table.map((r, k) => (
              <tr
                key={r.key}
                className={r.over ? 'row-marked' : undefined}
                data-testid="stage-row"
                data-over={String(r.over)}
              >
                <td>{k + 1}</td>
                <td className="num">{formatRpsCell(r.targetRps)}</td>
                <td className="num">{formatRpsCell(r.achievedRps)}</td>
                {r.percentiles.map((p) => (
                  <td key={p.p} className="num">
                    <MarkedValue marked={p.marked} />
                  </td>
                ))}
                <td className="num" title={r.ratioFromEstimate ? FROM_ESTIMATE : undefined}>
                  {markDerived(formatRatio(r.ratio), r.ratioFromEstimate)}
                </td>
                <td
                  className="num"
                  title={
                    r.errors === null
                      ? undefined
                      : `${formatCount(r.errors)} of ${formatCount(r.requests)} requests`
                  }
                >
                  {r.errorRate === null
                    ? '—'
                    : `${formatErrorRate(r.errorRate * 100)} (${formatCount(r.errors)})`}
                </td>
                <td className="num">{formatCount(r.requests)}</td>
                <td className="nowrap">
                  {formatClock(r.fromMs / 1000)} – {formatClock(r.toMs / 1000)}
                </td>
                <td>{r.mode}</td>
                <td className="num">{formatCount(r.connections)}</td>
                <td className="stage-generators">
                  {r.generators.length === 0
                    ? '—'
                    : r.generators.map((g, i) => (
                        // One generator a line, unbroken: a narrow page scrolls the table
                        // rather than stacking a cell eight lines tall.
                        <span key={g.name}>
                          {i > 0 && <br />}
                          {`${g.name} ${formatRpsCell(g.achievedRps)} RPS${g.shortfall ? ' (short)' : ''}${g.saturated ? ' (CPU saturated)' : ''}`}
                        </span>
                      ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <AccuracyLegend
          certainties={prepared.table.flatMap((r) => r.percentiles.map((p) => p.marked.certainty))}
        />
      </div>
    </section>
  );
}
