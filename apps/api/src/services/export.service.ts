// Exports: a run's raw events, as NDJSON the events API takes back.
import { notFound } from '../errors.ts';
import type { EventsRepository } from '../repositories/events.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';

export function exportService(deps: { runs: RunsRepository; events: EventsRepository }) {
  return {
    /** Resolves the run first, so a 404 comes before any byte of the stream. */
    async events(runRef: string) {
      const run = await deps.runs.find(runRef);
      if (!run) throw notFound(`run "${runRef}"`);
      return {
        run,
        stream: (write: (lines: string) => Promise<void>) =>
          deps.events.exportEvents(run.id, write),
      };
    },
  };
}
