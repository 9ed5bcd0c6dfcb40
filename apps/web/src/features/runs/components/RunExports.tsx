// Under the run's header: the run's raw data as files, for other tools (each only when the
// run holds that kind of data).
import type { Run } from '@meshbench/schema';
import { runEventsUrl, runResultsUrl, runUrl } from '../../../api/urls.ts';

export function RunExports({
  run,
  hasEvents,
  hasResults,
}: {
  run: Run;
  hasEvents: boolean;
  hasResults: boolean;
}) {
  return (
    <p className="run-exports" data-testid="run-exports">
      <span>Export</span>
      {hasEvents && (
        <a href={runEventsUrl(run.id)} download data-testid="events-ndjson">
          Raw events (NDJSON)
        </a>
      )}
      {hasResults && (
        <a href={runResultsUrl(run.id)} data-testid="results-json-export">
          Load results (JSON)
        </a>
      )}
      <a href={runUrl(run.id)} data-testid="run-json">
        Run (JSON)
      </a>
    </p>
  );
}
