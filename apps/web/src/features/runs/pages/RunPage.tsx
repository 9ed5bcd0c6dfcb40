// `/runs/:id` (a UUID or the run's share slug): the run's facts, then one section per change.
import { Link, useParams } from 'react-router';
import { meshColor } from '../../../charts/prepare/mesh-colors.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { ChangeSection } from '../components/ChangeSection.tsx';
import { RunHeader } from '../components/RunHeader.tsx';
import { useChanges, useRun } from '../hooks/use-runs.ts';

export function RunPage() {
  const { id = '' } = useParams();
  const run = useRun(id);
  const changes = useChanges(id);
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
          {changes.isPending ? (
            <Loading what="changes" />
          ) : changes.isError ? (
            <ErrorMessage error={changes.error} what="changes" />
          ) : changes.data.length === 0 ? (
            <p className="state">No changes have been posted to this run.</p>
          ) : (
            changes.data.map((change) => (
              <ChangeSection
                key={change.id}
                runId={run.data.id}
                change={change}
                color={meshColor(run.data.mesh.name)}
              />
            ))
          )}
        </>
      )}
    </>
  );
}
