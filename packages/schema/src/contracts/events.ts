// The events group: batches of probe events posted as bytes, and read back as NDJSON.
import { z } from 'zod';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import { eventBatchQuery, eventSource, ingestResult, storedSourceLines } from '../events.ts';

const runParams = z.object({ id: z.string().min(1) });

export const eventsRoutes = defineRoutes({
  post: {
    method: 'POST',
    path: '/runs/:id/events',
    tags: ['events'],
    summary: 'Post a batch of probe events',
    bodyBytes: true,
    description:
      'A batch of probe events: `application/x-ndjson` (one event per line, at most 1 MiB a line) or `application/json` (an array); `Content-Encoding: gzip` allowed. Atomic: all stored or none. A 4xx names the line and field at fault. Retries with the same `Idempotency-Key` are acknowledged and stored once. A batch cut from a larger input names it (`source`, `lines`): lines of that input already stored are refused with 409, so the input sent again, however it is cut, stores nothing twice (see GET /runs/{id}/events/sources/{source}). A body that stops arriving for `MESHBENCH_BODY_TIMEOUT_MS`, or brings less than `MESHBENCH_BODY_MIN_RATE` bytes a second over a window of `MESHBENCH_BODY_RATE_WINDOW_MS`, gets 408 and is rolled back; a server at its limit of batches in progress (a batch takes a slot once its first 64 KiB have arrived, or on the embedded database once read whole), of the share of them one project may hold while another project sends too (`MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT`), or of body bytes held (`MESHBENCH_MAX_HELD_BYTES`), shutting down, or without its database (e.g. restarting), answers 503 with `Retry-After`.',
    params: runParams,
    query: eventBatchQuery,
    headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }),
    responses: {
      200: ingestResult,
      400: apiError,
      401: apiError,
      404: apiError,
      408: apiError,
      409: apiError,
      413: apiError,
      415: apiError,
      422: apiError,
      503: apiError,
    },
    bearer: true,
  },
  sourceLines: {
    method: 'GET',
    path: '/runs/:id/events/sources/:source',
    tags: ['events'],
    summary: 'Which lines of a source are stored',
    description:
      'Which lines of a source (an input that batches were cut from, named by `source` on POST /runs/{id}/events) are stored on the run: what sending it again may skip.',
    params: z.object({ id: z.string().min(1), source: eventSource }),
    responses: { 200: storedSourceLines, 404: apiError },
  },
  /** NDJSON, streamed: a link (paths.events), not a parsed call. */
  export: {
    method: 'GET',
    path: '/runs/:id/events',
    tags: ['events'],
    summary: "Export a run's raw events as NDJSON",
    description:
      "The run's raw events as NDJSON, in the form POST /runs/{id}/events takes: changes, incidents, lifecycle events, observations, then clock reports; within a kind by time, then by the line's bytes, so the same events always export as the same bytes.",
    params: runParams,
    responses: { 404: apiError },
  },
});
