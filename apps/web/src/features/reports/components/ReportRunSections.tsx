// One run of a report, as its run page shows it, drawn from the frozen snapshot: its facts,
// then per change the percentile table, histogram, convergence curve and tail causes.
import type { HistogramScale, ReportRun } from '@meshbench/schema';
import { useMemo, useState } from 'react';
import { ConvergenceChart } from '../../../charts/ConvergenceChart.tsx';
import { HistogramChart } from '../../../charts/HistogramChart.tsx';
import { prepareCdf } from '../../../charts/prepare/cdf.ts';
import {
  formatCount,
  formatDuration,
  formatElapsed,
  formatMsValue,
  formatPercent,
  formatTimestamp,
} from '../../../charts/prepare/format.ts';
import { prepareHistogram } from '../../../charts/prepare/histogram.ts';
import { MeshName } from '../../../ui/MeshName.tsx';
import { ScaleToggle } from '../../../ui/ScaleToggle.tsx';
import { StatusBadge } from '../../../ui/StatusBadge.tsx';
import { LoadOverlayPanel } from '../../compare/components/LoadOverlayPanel.tsx';
import { TailSharesPanel } from '../../compare/components/TailSharesPanel.tsx';
import type { ComparedRun } from '../../compare/prepare/compared-runs.ts';
import { PropagationTable } from '../../runs/components/PropagationTable.tsx';

type FrozenChange = ReportRun['changes'][number];

function topologyText(t: ReportRun['run']['topology']): string {
  const parts: string[] = [];
  if (t.nodes !== undefined) parts.push(`${formatCount(t.nodes)} nodes`);
  if (t.services !== undefined) parts.push(`${formatCount(t.services)} services`);
  if (t.instances !== undefined) parts.push(`${formatCount(t.instances)} instances`);
  if (t.servers !== undefined) parts.push(`${formatCount(t.servers)} servers`);
  return parts.length > 0 ? parts.join(' · ') : '—';
}

function RunFacts({ run }: { run: ReportRun['run'] }) {
  const labels = Object.entries(run.labels).sort(([a], [b]) => a.localeCompare(b));
  return (
    <header className="run-header">
      <div className="run-title">
        <h2 className="report-run-title">
          <MeshName name={run.mesh.name} version={run.mesh.version} />
          <span className="run-title-sep">·</span>
          {run.benchmark}
          <span className="run-title-sep">/</span>
          {run.scenario}
        </h2>
        <StatusBadge status={run.status} />
      </div>
      <dl className="facts">
        <div>
          <dt>Platform</dt>
          <dd>{run.platform ?? '—'}</dd>
        </div>
        <div className="wide">
          <dt>Topology</dt>
          <dd>{topologyText(run.topology)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTimestamp(run.startedAt)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            {run.finishedAt
              ? formatElapsed(Date.parse(run.finishedAt) - Date.parse(run.startedAt))
              : '—'}
          </dd>
        </div>
        <div className="wide">
          <dt>Labels</dt>
          <dd className="labels">
            {labels.length === 0
              ? '—'
              : labels.map(([k, v]) => (
                  <span key={k} className="label-chip">
                    {k}={v}
                  </span>
                ))}
          </dd>
        </div>
      </dl>
    </header>
  );
}

function FrozenChangeSection({ change, run }: { change: FrozenChange; run: ComparedRun }) {
  const p = change.linear;
  // The snapshot's linear bins run to P99: with a long tail, the log view says more.
  const [hScale, setHScale] = useState<HistogramScale>('log');
  const [cScale, setCScale] = useState<HistogramScale>('log');
  const histogram = useMemo(
    () => prepareHistogram(hScale === 'log' ? change.log : change.linear),
    [change, hScale],
  );
  const cdf = useMemo(() => prepareCdf(p.cdf, cScale, p.withinMs), [p, cScale]);
  const notes = [histogram?.belowNote, histogram?.aboveNote].filter(Boolean);
  return (
    <section className="change" data-testid="report-change" data-change-id={p.change.id}>
      <header className="change-head">
        <h3 className="change-title">
          <span className="change-kind">{p.change.kind}</span> {p.change.target}{' '}
          <span className="change-action">{p.change.action}</span>
        </h3>
        <p className="muted">
          Change <code>{p.change.id}</code> at {formatTimestamp(p.change.at)} —{' '}
          {formatCount(p.count)}
          {p.expected !== null && ` of ${formatCount(p.expected)}`} proxies applied it,{' '}
          <strong>
            {formatPercent(p.withinFraction)} within {formatDuration(p.withinMs)}
          </strong>
        </p>
      </header>
      <PropagationTable propagation={p} />
      <div className="chart-grid">
        <div className="panel">
          <div className="panel-head">
            <div>
              <h3>Latency histogram</h3>
              <p className="panel-sub">
                Proxies by time to apply the change
                {histogram &&
                  `, ${formatDuration(histogram.domain[0])} to ${formatDuration(histogram.domain[1])}`}
              </p>
            </div>
            <ScaleToggle name="report-histogram" value={hScale} onChange={setHScale} />
          </div>
          <div className="chart-box" data-testid="report-histogram" data-scale={hScale}>
            {histogram ? (
              <HistogramChart histogram={histogram} color={run.style.color} />
            ) : (
              <p className="state">No applications to draw.</p>
            )}
          </div>
          <p className="chart-note">{notes.length > 0 ? notes.join(' · ') : '\u00a0'}</p>
        </div>
        <div className="panel">
          <div className="panel-head">
            <div>
              <h3>Convergence</h3>
              <p className="panel-sub">
                Share of the{' '}
                {p.expected === null
                  ? 'proxies that applied it'
                  : `${formatCount(p.expected)} expected proxies`}{' '}
                updated
              </p>
            </div>
            <ScaleToggle name="report-convergence" value={cScale} onChange={setCScale} />
          </div>
          <div className="chart-box" data-testid="report-convergence" data-scale={cScale}>
            {cdf ? (
              <ConvergenceChart cdf={cdf} color={run.style.color} />
            ) : (
              <p className="state">No applications to draw.</p>
            )}
          </div>
          <p className="chart-note">
            {cdf ? `${formatPercent(cdf.finalPercent / 100)} updated by the last observation` : ''}
          </p>
        </div>
      </div>
      <div className="report-tail">
        <TailSharesPanel runs={[run]} tails={[change.tail]} />
        {change.tail.slowest.length > 0 && (
          <details className="panel slowest" open>
            <summary>
              <h3>Slowest proxies</h3>
            </summary>
            <div className="chart-data-table">
              <table className="data compact" data-testid="report-slowest">
                <thead>
                  <tr>
                    <th>Proxy</th>
                    <th>Node</th>
                    <th className="num">ms</th>
                    <th>Cause</th>
                    <th>Incident</th>
                  </tr>
                </thead>
                <tbody>
                  {change.tail.slowest.map((s) => (
                    <tr key={s.proxy}>
                      <td>{s.proxy}</td>
                      <td>{s.node ?? '—'}</td>
                      <td className="num">{formatMsValue(s.ms)}</td>
                      <td>{s.cause}</td>
                      <td>
                        {s.incident
                          ? `${s.incident.kind} on ${s.incident.proxy ?? s.incident.node ?? '—'} from ${formatTimestamp(s.incident.from)}`
                          : '—'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        )}
      </div>
    </section>
  );
}

export function ReportRunSections({ frozen, run }: { frozen: ReportRun; run: ComparedRun }) {
  return (
    <article className="report-run" data-testid="report-run" data-run-id={frozen.run.id}>
      <RunFacts run={frozen.run} />
      {frozen.changes.length === 0 && frozen.loadResults.length === 0 && (
        <p className="state" data-testid="report-run-empty">
          {frozen.timeline
            ? 'This run had no changes and no load results when it was shared; what it recorded is its scale-up timeline, in "Scale-up timelines".'
            : 'This run had no changes and no load results when it was shared.'}
        </p>
      )}
      {frozen.changes.map((c) => (
        <FrozenChangeSection key={c.linear.change.id} change={c} run={run} />
      ))}
      <LoadOverlayPanel runs={[run]} results={[frozen.loadResults]} />
    </article>
  );
}
