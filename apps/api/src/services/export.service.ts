// Exports: a run's raw events, as NDJSON the events API takes back; a change as a Perfetto
// trace (export/perfetto/), streamed from a cursor so no export is held whole in memory.
import { notFound } from '../errors.ts';
import { ChangeTrace } from '../export/perfetto/change-trace.ts';
import type { EventsRepository } from '../repositories/events.repository.ts';
import type { PropagationRepository } from '../repositories/propagation.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';

export function exportService(deps: {
  runs: RunsRepository;
  events: EventsRepository;
  propagation: PropagationRepository;
}) {
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

    /** The run and the change are resolved before the stream, so a 404 comes first. */
    async changeTrace(runRef: string, changeId: string) {
      const run = await deps.runs.find(runRef);
      if (!run) throw notFound(`run "${runRef}"`);
      const row = await deps.propagation.changeWithSummary(run.id, changeId);
      if (!row) throw notFound(`change "${changeId}" in run "${runRef}"`);
      return {
        run,
        stream: async (write: (bytes: Buffer) => Promise<void>) => {
          const trace = new ChangeTrace(row.change);
          await deps.events.exportProxyStages(run.id, changeId, async (rows) => {
            const bytes = trace.add(rows);
            if (bytes.length > 0) await write(bytes);
          });
          await write(trace.finish());
        },
      };
    },
  };
}
