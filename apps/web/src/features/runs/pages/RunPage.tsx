// `/runs/:id` (a UUID or the run's share slug): the run's facts and exports, then every
// section that has data: the gate verdict, one per change (propagation and tail causes),
// the scale-up timeline, then the data plane.
import { useCallback, useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { meshColor } from '../../../charts/prepare/mesh-colors.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { GateSection } from '../../gates/components/GateSection.tsx';
import { DataPlaneSection } from '../../load-results/components/DataPlaneSection.tsx';
import { useLoadResults } from '../../load-results/hooks/use-load-results.ts';
import { TimelineSection } from '../../timeline/components/TimelineSection.tsx';
import { hasTimeline, useTimeline } from '../../timeline/hooks/use-timeline.ts';
import { ChangeSection } from '../components/ChangeSection.tsx';
import { ClocksSection } from '../components/ClocksSection.tsx';
import { RunExports } from '../components/RunExports.tsx';
import { RunHeader } from '../components/RunHeader.tsx';
import {
  optionsFromSearch,
  optionsToSearch,
  type PropagationOptions,
} from '../hooks/propagation-options.ts';
import { useChanges, useRun } from '../hooks/use-runs.ts';
import './run-page.css';

export function RunPage() {
  const { id = '' } = useParams();
  const run = useRun(id);
  const changes = useChanges(id);
  // The histograms' marked percentiles and threshold live in the URL, so a link keeps them.
  const [search, setSearch] = useSearchParams();
  const options = useMemo(() => optionsFromSearch(search), [search]);
  const setOptions = useCallback(
    (next: PropagationOptions) => setSearch((s) => optionsToSearch(s, next), { replace: true }),
    [setSearch],
  );
  // The same query the data-plane section makes (one request): to tell an empty run apart.
  const results = useLoadResults(run.data?.id ?? id);
  // Likewise the timeline section's query: a run with lifecycle phases or series is not empty.
  const timeline = useTimeline(run.data?.id ?? '');
  const empty =
    changes.data?.length === 0 &&
    results.data?.length === 0 &&
    timeline.isSuccess &&
    !hasTimeline(timeline.data);
  return (
    <>
      <nav className="crumbs">
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
          <GateSection runId={run.data.id} />
          <RunExports run={run.data} />
          {changes.isPending ? (
            <Loading what="changes" />
          ) : changes.isError ? (
            <ErrorMessage error={changes.error} what="changes" />
          ) : (
            changes.data.map((change) => (
              <ChangeSection
                key={change.id}
                runId={run.data.id}
                change={change}
                color={meshColor(run.data.mesh.name)}
                options={options}
                onOptions={setOptions}
              />
            ))
          )}
          <ClocksSection runId={run.data.id} />
          <TimelineSection runId={run.data.id} />
          {empty && (
            <p className="state" data-testid="run-empty">
              This run has no changes and no load results.
            </p>
          )}
          <DataPlaneSection run={run.data} />
        </>
      )}
    </>
  );
}
