// `/compare?runs=a,b,c`: two to four runs side by side, the first as the baseline; the table
// from one read (GET /compare), the rest after it.
import type { Change, ChangeList, CompareView, Propagation } from '@meshbench/schema';
import { useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { changeTailUrl } from '../../../api/urls.ts';
import { meshLabel, useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { ShareButton } from '../../../ui/ShareButton.tsx';
import { useUrlScale } from '../../../ui/url-state.ts';
import { ChangeComparison } from '../components/ChangeComparison.tsx';
import { ComparabilityWarning } from '../components/ComparabilityWarning.tsx';
import { DifferencesWarning } from '../components/DifferencesWarning.tsx';
import { RunCards } from '../components/RunCards.tsx';
import {
  MAX_COMPARED,
  MIN_COMPARED,
  parseCompareRuns,
  useCompareSignificance,
  useCompareView,
  useLinearHistograms,
  useLoadResults,
  useTails,
  useTimelines,
} from '../hooks/use-compare.ts';
import { headlinesByRun, pairSummaries, runsWith } from '../prepare/compare-view.ts';
import { type ComparedRun, comparedRuns } from '../prepare/compared-runs.ts';
import { whatDiffers } from '../prepare/differences.ts';
import { type ChangePair, pairChanges } from '../prepare/pair-changes.ts';
import '../compare.css';
import {
  LazyLoadOverlayPanel,
  LazyTimelineOverlayPanel,
} from '../components/LazyOverlayPanels.tsx';

type ChangeItem = ChangeList[number];

function LiveChangeComparison({
  runs,
  pair,
  summaryData,
}: {
  runs: ComparedRun[];
  pair: ChangePair<ChangeItem>;
  /** Per run, its change's summary from the compare read; null: no change to pair. */
  summaryData: (Propagation | null)[];
}) {
  const runIds = runs.map((r) => r.run.id);
  const [scale, setScale] = useUrlScale('compare-histogram', 'log');
  const linear = useLinearHistograms(
    runIds,
    pair.changes,
    summaryData.map((s) => s ?? undefined),
    scale,
  );
  // The summaries came with the compare read: the tails are asked for as the table shows.
  const tails = useTails(runIds, pair.changes, true);
  const significance = useCompareSignificance(runIds, pair.changes, summaryData[0]);
  const histograms =
    scale === 'log'
      ? summaryData
      : linear.queries.map((q, i) =>
          // No common range (nothing applied anywhere): nothing to draw, not loading.
          summaryData[i] === null || (linear.request === null && summaryData[i]) ? null : q.data,
        );
  return (
    <ChangeComparison
      runs={runs}
      pair={pair}
      data={{
        summaries: summaryData,
        intervals: significance.intervals,
        intervalError: significance.error,
        intervalsPending: significance.pending,
        histograms,
        histogramScale: scale,
        onHistogramScale: setScale,
        histogramsBusy: scale === 'linear' && linear.queries.some((q) => q.isFetching),
        histogramError:
          scale === 'linear' ? linear.queries.find((q) => q.isError)?.error : undefined,
        ...(scale === 'log' ? { histogramNote: "bins over each run's own range" } : {}),
        tails: tails.map((q, i) => (pair.changes[i] === null ? null : q.data)),
        tailError: tails.find((q) => q.isError)?.error,
        tailCsvUrls: pair.changes.map((c, i) =>
          c ? changeTailUrl(runIds[i] as string, c.id, { format: 'csv' }) : null,
        ),
      }}
    />
  );
}

function Comparison({ view }: { view: CompareView }) {
  const { runs, changes } = view;
  const compared = useMemo(() => comparedRuns(runs), [runs]);
  const pairs = useMemo(() => pairChanges(changes), [changes]);
  const headlines = useMemo(() => headlinesByRun(view), [view]);
  const differences = whatDiffers(
    runs,
    (pairs[0]?.changes ?? []) as (Pick<Change, 'id' | 'expected'> | null)[],
  );
  const ids = runs.map((r) => r.id);
  const loadResults = useLoadResults(ids, runsWith(view, 'loadResults'));
  const timelines = useTimelines(ids, runsWith(view, 'timeline'));
  const nothing = view.has.every((h) => !h.loadResults && !h.timeline);
  return (
    <>
      <RunCards runs={compared} linkToRuns headlines={headlines} />
      <ComparabilityWarning comparability={view.comparability} />
      <DifferencesWarning differences={differences} />
      {pairs.length === 0
        ? nothing && (
            <p className="state">
              These runs have no changes, no load results and no timelines to compare.
            </p>
          )
        : pairs.map((pair) => (
            <LiveChangeComparison
              key={pair.title}
              runs={compared}
              pair={pair}
              summaryData={pairSummaries(view, pair.changes)}
            />
          ))}
      {timelines.error !== undefined && (
        <ErrorMessage error={timelines.error} what="a run's timeline" />
      )}
      <LazyTimelineOverlayPanel runs={compared} timelines={timelines.timelines} />
      <LazyLoadOverlayPanel runs={compared} results={loadResults} />
    </>
  );
}

export function ComparePage() {
  const [params] = useSearchParams();
  const ids = parseCompareRuns(params.get('runs'));
  const valid = ids.length >= MIN_COMPARED && ids.length <= MAX_COMPARED;
  const view = useCompareView(ids, valid);
  const names = view.data?.runs.map(meshLabel) ?? [];
  useDocumentTitle(names.length > 0 ? `Compare ${names.join(' vs ')}` : 'Compare runs');
  return (
    <div className="compare-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <Link to="/">Runs</Link> <span aria-hidden="true">›</span> <span>Compare</span>
      </nav>
      <div className="page-head compare-head">
        <h1>Compare {valid ? `${ids.length} runs` : 'runs'}</h1>
        {valid && view.data && <ShareButton runIds={view.data.runs.map((r) => r.id)} />}
      </div>
      {!valid ? (
        <div className="state state-error" role="alert">
          <strong>
            Pick {MIN_COMPARED} to {MAX_COMPARED} runs to compare
          </strong>
          <span>
            The address needs <code>?runs=id1,id2</code> with {MIN_COMPARED} to {MAX_COMPARED}{' '}
            different runs; it has {ids.length}. <Link to="/">Pick them from the runs list.</Link>
          </span>
        </div>
      ) : view.isError ? (
        <ErrorMessage error={view.error} what="the runs" />
      ) : !view.data ? (
        <Loading what="runs" />
      ) : (
        <Comparison view={view.data} />
      )}
    </div>
  );
}
