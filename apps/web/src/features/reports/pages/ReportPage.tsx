// `/r/:slug`: a shared report, drawn only from its frozen snapshot (one request, no other
// API call), so it reads the same for anyone with the link, whenever they open it.
import type { Report } from '@meshbench/schema';
import { useMemo } from 'react';
import { useParams } from 'react-router';
import { ApiRequestError } from '../../../api/client.ts';
import { formatTimestamp } from '../../../charts/prepare/format.ts';
import { useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { useUrlScale } from '../../../ui/url-state.ts';
import { ChangeComparison } from '../../compare/components/ChangeComparison.tsx';
import { ComparabilityWarning } from '../../compare/components/ComparabilityWarning.tsx';
import { DifferencesWarning } from '../../compare/components/DifferencesWarning.tsx';
import { RunCards } from '../../compare/components/RunCards.tsx';
import type { ComparedRun } from '../../compare/prepare/compared-runs.ts';
import type { ChangePair } from '../../compare/prepare/pair-changes.ts';
import { ReportRunSections } from '../components/ReportRunSections.tsx';
import { useReport } from '../hooks/use-report.ts';
import { type ReportChangeItem, reportView } from '../prepare/report-view.ts';
import '../../compare/compare.css';
import '../reports.css';
import {
  LazyLoadOverlayPanel,
  LazyTimelineOverlayPanel,
} from '../../compare/components/LazyOverlayPanels.tsx';

function FrozenChangeComparison({
  runs,
  pair,
}: {
  runs: ComparedRun[];
  pair: ChangePair<ReportChangeItem>;
}) {
  // The snapshot holds linear bins to each run's P99 and log bins over everything: with long
  // tails the log view is the one that shows both body and tail.
  const [scale, setScale] = useUrlScale('compare-histogram', 'log');
  return (
    <ChangeComparison
      runs={runs}
      pair={pair}
      data={{
        summaries: pair.changes.map((c) => c?.linear ?? null),
        // Frozen with the report: each run's against the baseline change of this pair.
        intervals: pair.changes.map(
          (c) => c?.intervals?.find((x) => x.baselineChange === pair.changes[0]?.id)?.differences,
        ),
        histograms: pair.changes.map((c) => (c ? (scale === 'log' ? c.log : c.linear) : null)),
        histogramScale: scale,
        onHistogramScale: setScale,
        histogramNote: 'bins as each run was frozen',
        tails: pair.changes.map((c) => c?.tail ?? null),
      }}
    />
  );
}

function ReportBody({ report }: { report: Report }) {
  const view = useMemo(() => reportView(report), [report]);
  const single = report.runs.length === 1;
  // Frozen with the report; null (or absent, in older reports) where a run had none.
  const timelines = report.runs.map((r) => r.timeline ?? null);
  return (
    <>
      {single ? (
        <>
          <ReportRunSections
            frozen={report.runs[0] as Report['runs'][number]}
            run={view.runs[0] as ComparedRun}
          />
          <LazyTimelineOverlayPanel runs={view.runs} timelines={timelines} />
        </>
      ) : (
        <>
          <RunCards
            runs={view.runs}
            linkToRuns={false}
            headlines={new Map(report.runs.map((r) => [r.run.id, r.headline ?? null]))}
          />
          <ComparabilityWarning comparability={report.comparability} />
          <DifferencesWarning differences={view.differences} />
          {view.pairs.map((pair) => (
            <FrozenChangeComparison key={pair.title} runs={view.runs} pair={pair} />
          ))}
          <LazyLoadOverlayPanel runs={view.runs} results={view.loadResults} />
          <LazyTimelineOverlayPanel runs={view.runs} timelines={timelines} />
          <h2 className="report-appendix-title">Each run</h2>
          {report.runs.map((frozen, i) => (
            <ReportRunSections
              key={frozen.run.id}
              frozen={frozen}
              run={view.runs[i] as ComparedRun}
            />
          ))}
        </>
      )}
    </>
  );
}

export function ReportPage() {
  const { slug = '' } = useParams();
  const report = useReport(slug);
  useDocumentTitle(report.data ? report.data.title : report.isError ? 'No such report' : 'Report');
  return (
    <div className="report-page">
      {report.isPending ? (
        <Loading what="report" />
      ) : report.isError ? (
        report.error instanceof ApiRequestError && report.error.status === 404 ? (
          <div className="state state-error" role="alert">
            <strong>No such report</strong>
            <span>This link does not lead to a report: it may have been deleted.</span>
          </div>
        ) : (
          <ErrorMessage error={report.error} what="the report" />
        )
      ) : (
        <>
          <header className="report-head">
            <div>
              <h1 data-testid="report-title">{report.data.title}</h1>
              <p className="report-note" data-testid="report-note">
                <span className="frozen-badge">Frozen snapshot</span> made{' '}
                {formatTimestamp(report.data.createdAt)}: the numbers as they were then, whatever
                the runs hold now.
              </p>
              <p className="muted report-headline">{report.data.description}</p>
              <p className="print-only report-print-link" data-testid="report-print-head">
                {window.location.href}
              </p>
            </div>
            <button type="button" className="button no-print" onClick={() => window.print()}>
              Print
            </button>
          </header>
          <ReportBody report={report.data} />
        </>
      )}
    </div>
  );
}
