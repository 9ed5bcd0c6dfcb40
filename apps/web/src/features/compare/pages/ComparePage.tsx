// `/compare?runs=a,b,c`: two to four runs side by side, the first as the baseline.
import type { Change, ChangeList, Run } from '@meshbench/schema';
import { useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { changeTailUrl } from '../../../api/urls.ts';
import { meshLabel, useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { ShareButton } from '../../../ui/ShareButton.tsx';
import { useUrlScale } from '../../../ui/url-state.ts';
import { useRunHeadlines } from '../../runs/hooks/use-runs.ts';
import { ChangeComparison } from '../components/ChangeComparison.tsx';
import { ComparabilityWarning } from '../components/ComparabilityWarning.tsx';
import { DifferencesWarning } from '../components/DifferencesWarning.tsx';
import { RunCards } from '../components/RunCards.tsx';
import {
  MAX_COMPARED,
  MIN_COMPARED,
  parseCompareRuns,
  useComparability,
  useComparedRuns,
  useCompareSignificance,
  useLinearHistograms,
  useLoadResults,
  useSummaries,
  useTails,
  useTimelines,
} from '../hooks/use-compare.ts';
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
}: {
  runs: ComparedRun[];
  pair: ChangePair<ChangeItem>;
}) {
  const runIds = runs.map((r) => r.run.id);
  const summaries = useSummaries(runIds, pair.changes);
  const summaryData = summaries.map((q, i) => (pair.changes[i] === null ? null : q.data));
  const summariesIn = summaryData.every((s) => s !== undefined);
  const [scale, setScale] = useUrlScale('compare-histogram', 'log');
  const linear = useLinearHistograms(
    runIds,
    pair.changes,
    summaryData.map((s) => s ?? undefined),
    scale,
  );
  const tails = useTails(runIds, pair.changes, summariesIn);
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
        summaryError: summaries.find((q) => q.isError)?.error,
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

function Comparison({ runs, changes }: { runs: Run[]; changes: ChangeList[] }) {
  const compared = useMemo(() => comparedRuns(runs), [runs]);
  const pairs = useMemo(() => pairChanges(changes), [changes]);
  const differences = whatDiffers(
    runs,
    (pairs[0]?.changes ?? []) as (Pick<Change, 'id' | 'expected'> | null)[],
  );
  const loadResults = useLoadResults(runs.map((r) => r.id));
  const comparability = useComparability(runs.map((r) => r.id));
  const timelines = useTimelines(runs.map((r) => r.id));
  const headlines = useRunHeadlines(runs.map((r) => r.id));
  const timelineData = timelines.map((q) => (q.isError ? null : q.data));
  const timelineError = timelines.find((q) => q.isError)?.error;
  const nothing =
    loadResults.every((q) => q.data?.length === 0) &&
    timelines.every((q) => q.isSuccess && q.data.phases.length + q.data.series.length === 0);
  return (
    <>
      <RunCards runs={compared} linkToRuns headlines={headlines.data} />
      {comparability.isError && (
        <ErrorMessage error={comparability.error} what="whether the runs are comparable" />
      )}
      <ComparabilityWarning comparability={comparability.data} />
      <DifferencesWarning differences={differences} />
      {pairs.length === 0
        ? nothing && (
            <p className="state">
              These runs have no changes, no load results and no timelines to compare.
            </p>
          )
        : pairs.map((pair) => (
            <LiveChangeComparison key={pair.title} runs={compared} pair={pair} />
          ))}
      {timelineError !== undefined && (
        <ErrorMessage error={timelineError} what="a run's timeline" />
      )}
      <LazyTimelineOverlayPanel runs={compared} timelines={timelineData} />
      <LazyLoadOverlayPanel runs={compared} results={loadResults.map((q) => q.data)} />
    </>
  );
}

export function ComparePage() {
  const [params] = useSearchParams();
  const ids = parseCompareRuns(params.get('runs'));
  const { runs, changes } = useComparedRuns(ids);
  const names = runs.map((q) => (q.data ? meshLabel(q.data) : undefined));
  useDocumentTitle(
    names.length > 0 && names.every(Boolean) ? `Compare ${names.join(' vs ')}` : 'Compare runs',
  );
  const valid = ids.length >= MIN_COMPARED && ids.length <= MAX_COMPARED;
  const failed = [...runs, ...changes].find((q) => q.isError);
  const loaded =
    runs.every((q) => q.data !== undefined) && changes.every((q) => q.data !== undefined);
  return (
    <div className="compare-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <Link to="/">Runs</Link> <span aria-hidden="true">›</span> <span>Compare</span>
      </nav>
      <div className="page-head compare-head">
        <h1>Compare {valid ? `${ids.length} runs` : 'runs'}</h1>
        {valid && loaded && <ShareButton runIds={runs.map((q) => (q.data as Run).id)} />}
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
      ) : failed ? (
        <ErrorMessage error={failed.error} what="the runs" />
      ) : !loaded ? (
        <Loading what="runs" />
      ) : (
        <Comparison
          runs={runs.map((q) => q.data as Run)}
          changes={changes.map((q) => q.data as ChangeList)}
        />
      )}
    </div>
  );
}
