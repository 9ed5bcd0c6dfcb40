// `/runs/:id` (a UUID or the run's share slug): the run's facts and exports, then every
// section that has data: the gate verdict, one per change (propagation and tail causes),
// the scale-up timeline, then the data plane and (a run with interval data) its stages. A run with two changes or more (a churn test)
// shows all of them at once first, and one change's propagation at a time below, the one
// `?change=` names (the first by default), so that a link opens the same change.
import type { HistogramScale } from '@meshbench/schema';
import { lazy, Suspense, startTransition, useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { meshColor } from '../../../charts/prepare/mesh-colors.ts';
import { meshLabel, useDocumentTitle } from '../../../ui/document-title.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { GateSection } from '../../gates/components/GateSection.tsx';
import { AddResults } from '../../load-results/components/AddResults.tsx';
import { useLoadResults } from '../../load-results/hooks/use-load-results.ts';
import { hasTimeline, useTimeline } from '../../timeline/hooks/use-timeline.ts';
import { ClocksSection } from '../components/ClocksSection.tsx';
import { RunExports } from '../components/RunExports.tsx';
import { RunHeader } from '../components/RunHeader.tsx';
import {
  optionsFromSearch,
  optionsToSearch,
  type PropagationOptions,
} from '../hooks/propagation-options.ts';
import { shownChanges } from '../hooks/shown-changes.ts';
import { type LiveStatus, useRunLive } from '../hooks/use-run-live.ts';
import { useChanges, useRun, useRunHeadlines } from '../hooks/use-runs.ts';
import './run-page.css';

// A change's propagation (histogram, curve, tail) and a churn run's view of all its changes
// load only on runs with changes: a data-plane or stages run's page does without their code
// (and the chart kinds only they draw).
const loadChangeSection = () => import('../components/ChangeSection.tsx');
const ChangeSection = lazy(() => loadChangeSection().then((m) => ({ default: m.ChangeSection })));
const ChurnSection = lazy(() =>
  import('../../churn/components/ChurnSection.tsx').then((m) => ({ default: m.ChurnSection })),
);
// The scale-up timeline (and its band charts) loads only on the runs that have one: the
// page's own read of it (for `empty`) says so before its code is asked for.
const TimelineSection = lazy(() =>
  import('../../timeline/components/TimelineSection.tsx').then((m) => ({
    default: m.TimelineSection,
  })),
);
// The data-plane charts and the stages view load apart (the first-load budget): a propagation
// run needs neither, and only runs with interval data show the stages.
const DataPlaneSection = lazy(() =>
  import('../../load-results/components/DataPlaneSection.tsx').then((m) => ({
    default: m.DataPlaneSection,
  })),
);
const StagesSection = lazy(() =>
  import('../../load-results/components/StagesSection.tsx').then((m) => ({
    default: m.StagesSection,
  })),
);

export function RunPage() {
  const { id = '' } = useParams();
  const run = useRun(id);
  const changes = useChanges(id);
  // While the run is open, its views follow the live stream.
  const live = useRunLive(id, run.data?.status === 'running');
  useDocumentTitle(
    run.data
      ? `${meshLabel(run.data)} · ${run.data.benchmark} / ${run.data.scenario}`
      : run.isError
        ? 'Run not found'
        : 'Run',
  );
  // The histograms' marked percentiles and threshold live in the URL, so a link keeps them.
  const [search, setSearch] = useSearchParams();
  const options = useMemo(() => optionsFromSearch(search), [search]);
  const setOptions = useCallback(
    (next: PropagationOptions) => setSearch((s) => optionsToSearch(s, next), { replace: true }),
    [setSearch],
  );
  const heatmapScale: HistogramScale = search.get('heatmapScale') === 'log' ? 'log' : 'linear';
  const setHeatmapScale = useCallback(
    (scale: HistogramScale) =>
      setSearch(
        (s) => {
          const next = new URLSearchParams(s);
          if (scale === 'linear') next.delete('heatmapScale');
          else next.set('heatmapScale', scale);
          return next;
        },
        { replace: true },
      ),
    [setSearch],
  );
  // Choosing a change is a step a person may go back from: it pushes a history entry.
  const selectChange = useCallback(
    (changeId: string) => {
      setSearch((s) => {
        const next = new URLSearchParams(s);
        next.set('change', changeId);
        return next;
      });
      requestAnimationFrame(() =>
        document
          .querySelector('[data-testid="change-picker"]')
          ?.scrollIntoView({ behavior: 'smooth', block: 'start' }),
      );
    },
    [setSearch],
  );
  const many = (changes.data?.length ?? 0) >= 2;
  const shown = changes.data ? shownChanges(changes.data, search.get('change')) : [];
  // The same query the data-plane section makes (one request): to tell an empty run apart.
  const results = useLoadResults(run.data?.id ?? id);
  // Likewise the timeline section's query: a run with lifecycle phases or series is not empty.
  const timeline = useTimeline(run.data?.id ?? '');
  // A stages run opens on its stages (issue 31): its headline (the summary line's read) says it
  // is one, and the data-plane charts below wait until the stages are on the page, so that
  // drawing them does not hold up the first.
  const headlines = useRunHeadlines(run.data ? [run.data.id] : []);
  const headline = run.data ? headlines.data?.get(run.data.id) : undefined;
  const stagesRun = headline?.kind === 'data-plane' && !!headline.stages;
  const [stagesShownOf, setStagesShownOf] = useState<string | null>(null);
  const runId = run.data?.id ?? null;
  const onStagesSettled = useCallback(
    // A transition: the charts below are drawn after the stages are painted, in slices.
    () => startTransition(() => setStagesShownOf(runId)),
    [runId],
  );
  // A churn run opens on the table of all its changes; the opened change below is drawn after
  // it (a transition, like the data-plane charts after the stages), its code loaded meanwhile.
  const [churnShownOf, setChurnShownOf] = useState<string | null>(null);
  const onChurnSettled = useCallback(() => startTransition(() => setChurnShownOf(runId)), [runId]);
  useEffect(() => {
    if (many) void loadChangeSection();
  }, [many]);
  const dataPlaneNow = stagesShownOf === runId || (!headlines.isPending && !stagesRun);
  const empty =
    changes.data?.length === 0 &&
    results.data?.length === 0 &&
    timeline.isSuccess &&
    !hasTimeline(timeline.data);
  return (
    <>
      <nav className="crumbs" aria-label="Breadcrumb">
        <Link to="/">Runs</Link> <span aria-hidden="true">›</span>{' '}
        <span>{run.data ? run.data.slug : id}</span>
      </nav>
      {run.isPending ? (
        <Loading what="run" />
      ) : run.isError ? (
        <ErrorMessage error={run.error} what="the run" />
      ) : (
        <>
          <RunHeader run={run.data} />
          <LiveBadge live={live} open={run.data.status === 'running'} />
          <GateSection runId={run.data.id} gated={run.data.gated} />
          <div className="run-actions">
            <RunExports
              run={run.data}
              hasEvents={(changes.data?.length ?? 0) > 0 || (timeline.data?.phases.length ?? 0) > 0}
              hasResults={(results.data?.length ?? 0) > 0}
            />
            <AddResults runId={run.data.id} />
          </div>
          {changes.isPending ? (
            <Loading what="changes" />
          ) : changes.isError ? (
            <ErrorMessage error={changes.error} what="changes" />
          ) : (
            <>
              {many && (
                <>
                  <Suspense fallback={<Loading what="changes" />}>
                    <ChurnSection
                      runId={run.data.id}
                      options={options}
                      scale={heatmapScale}
                      onScale={setHeatmapScale}
                      selected={shown[0]?.id}
                      onSelect={selectChange}
                      onSettled={onChurnSettled}
                    />
                  </Suspense>
                  <label className="change-picker" data-testid="change-picker">
                    Change
                    <select
                      value={shown[0]?.id ?? ''}
                      onChange={(e) => selectChange(e.target.value)}
                      data-testid="change-select"
                    >
                      {changes.data.map((c) => (
                        <option key={c.id} value={c.id}>
                          {c.id} — {c.kind} {c.target} {c.action}
                        </option>
                      ))}
                    </select>
                  </label>
                </>
              )}
              {/* A churn run's opened change: on screen only (print: churn.css). Its own
                  boundary, drawn once the table of all changes is on the page (its code and
                  first read are fetched meanwhile): its charts do not hold the table up. */}
              <div className={many ? 'churn-change-detail' : undefined}>
                {!many || churnShownOf === runId ? (
                  <Suspense fallback={<Loading what={many ? 'the change' : 'changes'} />}>
                    {shown.map((change) => (
                      <ChangeSection
                        key={change.id}
                        runId={run.data.id}
                        change={change}
                        color={meshColor(run.data.mesh.name)}
                        options={options}
                        onOptions={setOptions}
                      />
                    ))}
                  </Suspense>
                ) : (
                  <Loading what="the change" />
                )}
              </div>
            </>
          )}
          <ClocksSection runId={run.data.id} />
          {timeline.isPending ? (
            <Loading what="timeline" />
          ) : timeline.isError || hasTimeline(timeline.data) ? (
            <Suspense fallback={<Loading what="timeline" />}>
              <TimelineSection runId={run.data.id} />
            </Suspense>
          ) : null}
          {empty && (
            <p className="state" data-testid="run-empty">
              This run has no changes and no load results.
            </p>
          )}
          {/* Their code (and the charts') only for a run with load results: the page's own
              read of them (or the headline) says so first. The section draws nothing for a
              run without interval data. */}
          {(stagesRun || results.isError || (results.data?.length ?? 0) > 0) && (
            <Suspense fallback={stagesRun ? <Loading what="the stages" /> : null}>
              <StagesSection runId={run.data.id} onSettled={onStagesSettled} />
            </Suspense>
          )}
          {results.isPending ? (
            <Loading what="load results" />
          ) : results.isError || results.data.length > 0 ? (
            dataPlaneNow ? (
              <Suspense fallback={<Loading what="the data-plane charts" />}>
                <DataPlaneSection run={run.data} />
              </Suspense>
            ) : (
              <Loading what="the data-plane charts" />
            )
          ) : null}
        </>
      )}
    </>
  );
}

/** Whether the page is following the run as it happens, and when it last moved. */
function LiveBadge({ live, open }: { live: LiveStatus | null; open: boolean }) {
  if (!open && live?.state !== 'ended') return null;
  return (
    <p className={`live-badge${live?.state === 'streaming' ? ' live-on' : ''}`} data-testid="live">
      {live === null
        ? 'Live: connecting…'
        : live.state === 'ended'
          ? `Finished while watched: showing the stored result (data version ${live.version}).`
          : `Live: updated ${live.at.toLocaleTimeString()} (data version ${live.version}); at most once a second.`}
    </p>
  );
}
