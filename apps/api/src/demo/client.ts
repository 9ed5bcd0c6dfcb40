// How the demo posts: through the public HTTP API with @meshbench/client, as any runner
// would. The e2e suite posts its runs the same way.
import { gzipSync } from 'node:zlib';
import { createClient, fetchTransport } from '@meshbench/client';
import type {
  CreateRunBody,
  CreateThresholdBody,
  ImportResultsQuery,
  ProbeEvent,
} from '@meshbench/schema';

export function apiClient(baseUrl: string, token?: string) {
  const api = createClient(fetchTransport({ url: baseUrl, token }));
  return {
    createRun: (run: CreateRunBody) => api.runs.create(run),
    postEvents: (runId: string, events: ProbeEvent[], idempotencyKey: string) =>
      api.runs.postEvents(runId, {
        body: gzipSync(events.map((e) => JSON.stringify(e)).join('\n')),
        contentType: 'application/x-ndjson',
        contentEncoding: 'gzip',
        idempotencyKey,
      }),
    postResults: (
      runId: string,
      file: string,
      format: ImportResultsQuery['format'] = 'auto',
      step: Omit<ImportResultsQuery, 'format'> = {},
    ) => api.runs.importResults(runId, { body: file, query: { format, ...step } }),
    finishRun: (runId: string, finishedAt?: string) =>
      api.runs.finish(runId, finishedAt ? { finishedAt } : {}),
    createThreshold: (projectId: string, body: CreateThresholdBody) =>
      api.projects.createThreshold(projectId, body),
  };
}
