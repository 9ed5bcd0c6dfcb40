// One run of a report, as its run page shows it, drawn from the frozen snapshot with the run
// page's views: its facts, then per change the percentile table, histogram, convergence curve
// and tail causes.
import type { ReportRun } from '@meshbench/schema';
import { lazy, Suspense, useMemo } from 'react';
import { formatCount, formatDurationMs, formatTimestamp } from '../../../charts/prepare/format.ts';
import { prepareHistogram } from '../../../charts/prepare/histogram.ts';
import { LazyDetails } from '../../../ui/LazyDetails.tsx';
import { Loading } from '../../../ui/QueryState.tsx';
import { RunSummary } from '../../../ui/RunSummary.tsx';
import { useUrlScale } from '../../../ui/url-state.ts';
import { LazyLoadOverlayPanel } from '../../compare/components/LazyOverlayPanels.tsx';
import { TailSharesPanel } from '../../compare/components/TailSharesPanel.tsx';
import type { ComparedRun } from '../../compare/prepare/compared-runs.ts';
import { ChangeHead } from '../../runs/components/ChangeHead.tsx';
import { ConvergenceView } from '../../runs/components/ConvergenceView.tsx';
import { HistogramView } from '../../runs/components/HistogramView.tsx';
import { PropagationTable } from '../../runs/components/PropagationTable.tsx';
import { RunFacts } from '../../runs/components/RunFacts.tsx';
import { DEFAULT_MARKED_PERCENTILES } from '../../runs/hooks/propagation-options.ts';

// A stages run's view, with its code, only in a report that holds one.
const StagesView = lazy(() =>
  import('../../load-results/components/StagesSection.tsx').then((m) => ({
    default: m.StagesView,
  })),
);

type FrozenChange = ReportRun['changes'][number];

function FrozenChangeSection({ change, run }: { change: FrozenChange; run: ComparedRun }) {
  const p = change.linear;
  // The snapshot's linear bins run to P99: with a long tail, the log view says more.
  const [hScale, setHScale] = useUrlScale('report-histogram', 'log');
  const histogram = useMemo(() => {
    const h = hScale === 'log' ? change.log : change.linear;
    // The run page's default lines; the frozen response says its own threshold.
    return prepareHistogram(h, { percentiles: DEFAULT_MARKED_PERCENTILES, withinMs: h.withinMs });
  }, [change, hScale]);
  return (
    <section className="change" data-testid="report-change" data-change-id={p.change.id}>
      <ChangeHead change={p.change} propagation={p} frozen />
      <PropagationTable propagation={p} />
      <div className="chart-grid">
        <HistogramView
          histogram={histogram}
          color={run.style.color}
          scale={hScale}
          onScale={setHScale}
          name="report-histogram"
          testIds={{ chart: 'report-histogram' }}
          drawnScale={hScale}
          empty="No applications to draw."
        />
        <ConvergenceView
          summary={p}
          color={run.style.color}
          name="report-convergence"
          testIds={{ chart: 'report-convergence' }}
          emptyNote=""
        />
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
                    <th className="num">Time to apply</th>
                    <th>Cause</th>
                    <th>Incident</th>
                  </tr>
                </thead>
                <tbody>
                  {change.tail.slowest.map((s) => (
                    <tr key={s.proxy}>
                      <td>{s.proxy}</td>
                      <td>{s.node ?? '—'}</td>
                      <td className="num">{formatDurationMs(s.ms)}</td>
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
            {change.tail.slowest.length > 5 && (
              <p className="print-only table-note">
                The 5 slowest of the {formatCount(change.tail.slowest.length)} the shared page
                lists.
              </p>
            )}
          </details>
        )}
      </div>
    </section>
  );
}

/** A folded change in one line: which change, how many applied it, its P50 and P99. */
function ChangeLine({ propagation: p }: { propagation: FrozenChange['linear'] }) {
  const pct = (x: number) => p.percentiles.find((y) => y.p === x)?.ms;
  return (
    <span data-testid="report-change-line">
      <code>{p.change.id}</code> {p.change.kind} {p.change.target} {p.change.action} at{' '}
      {formatTimestamp(p.change.at)}: {formatCount(p.count)}
      {p.expected !== null && ` of ${formatCount(p.expected)}`} proxies; P50{' '}
      {formatDurationMs(pct(50))}, P99 {formatDurationMs(pct(99))}
    </span>
  );
}

export function ReportRunSections({ frozen, run }: { frozen: ReportRun; run: ComparedRun }) {
  return (
    <article className="report-run" data-testid="report-run" data-run-id={frozen.run.id}>
      <RunFacts run={frozen.run} frozen summary={<RunSummary headline={frozen.headline} />} />
      {frozen.changes.length === 0 && frozen.loadResults.length === 0 && (
        <p className="state" data-testid="report-run-empty">
          {frozen.timeline
            ? 'This run had no changes and no load results when it was shared; what it recorded is its scale-up timeline, in "Scale-up timelines".'
            : 'This run had no changes and no load results when it was shared.'}
        </p>
      )}
      {frozen.changes.length < 2 ? (
        frozen.changes.map((c) => (
          <FrozenChangeSection key={c.linear.change.id} change={c} run={run} />
        ))
      ) : (
        // A churn run: the pooled headline is above; each change's detail waits, folded, until
        // it is opened (a run of many changes would draw and print a page per change).
        <section className="report-changes" data-testid="report-changes">
          <h3 className="report-changes-title">
            Per change ({frozen.changes.length} changes): open one for its table, histogram, curve
            and tail
          </h3>
          {frozen.changes.map((c) => (
            <LazyDetails
              key={c.linear.change.id}
              className="report-change-fold"
              testId="report-change-fold"
              summary={<ChangeLine propagation={c.linear} />}
            >
              {() => <FrozenChangeSection change={c} run={run} />}
            </LazyDetails>
          ))}
        </section>
      )}
      {/* A stages run is read by its stages: first, as on the run page. */}
      {frozen.stages && (
        <Suspense fallback={<Loading what="the stages" />}>
          <StagesView stages={frozen.stages} />
        </Suspense>
      )}
      <LazyLoadOverlayPanel runs={[run]} results={[frozen.loadResults]} />
    </article>
  );
}
