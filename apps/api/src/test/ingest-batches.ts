// Posts NDJSON batches through the ingest service itself, on a database and a run the test
// made: for repository tests that need what ingest keeps, without an HTTP server.
import type { Database } from '@meshbench/db';
import { eventsRepository } from '../repositories/events.repository.ts';
import { runsRepository } from '../repositories/runs.repository.ts';
import { ingestService } from '../services/ingest.service.ts';
import { UploadCounts } from '../services/upload-counts.ts';

/** Each batch is a list of NDJSON lines, posted in order. */
export async function ingestBatches(
  database: Database,
  runId: string,
  batches: string[][],
): Promise<void> {
  const ingest = ingestService({
    runs: runsRepository(database.db),
    events: eventsRepository(database),
    maxBatchBytes: 1_000_000,
    uploads: new UploadCounts(),
    warn: () => {},
  });
  for (const lines of batches) {
    await ingest.ingest(runId, {
      body: (async function* () {
        yield Buffer.from(lines.join('\n'));
      })(),
      format: 'ndjson',
      digest: () => lines.join('\n'),
    });
  }
}
