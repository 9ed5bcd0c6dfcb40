// POST /runs/{id}/events: the body is streamed to the ingest service, never buffered here.
import type { Readable } from 'node:stream';
import {
  apiError,
  eventBatchQuery,
  eventSource,
  ingestResult,
  storedSourceLines,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { bodyChunks } from '../../ingest/body-chunks.ts';
import type { BatchFormat } from '../../ingest/events/event-stream.ts';
import { hashedBody } from '../request-body.ts';
import { streamedBody } from '../stream-reply.ts';
import { countRejections } from '../upload-rejections.ts';

const FORMATS: Record<string, BatchFormat> = {
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/json': 'json',
};

const routes: FastifyPluginAsyncZod = async (app) => {
  // In this plugin only: hand every body over as the raw stream.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post(
    '/runs/:id/events',
    {
      schema: {
        tags: ['events'],
        description:
          'A batch of probe events: `application/x-ndjson` (one event per line, at most 1 MiB a line) or `application/json` (an array); `Content-Encoding: gzip` allowed. Atomic: all stored or none. A 4xx names the line and field at fault. Retries with the same `Idempotency-Key` are acknowledged and stored once. A batch cut from a larger input names it (`source`, `lines`): lines of that input already stored are refused with 409, so the input sent again, however it is cut, stores nothing twice (see GET /runs/{id}/events/sources/{source}). A body that stops arriving for `MESHBENCH_BODY_TIMEOUT_MS`, or brings less than `MESHBENCH_BODY_MIN_RATE` bytes a second over a window of `MESHBENCH_BODY_RATE_WINDOW_MS`, gets 408 and is rolled back; a server at its limit of batches in progress (a batch takes a slot once its first 64 KiB have arrived, or on the embedded database once read whole), of the share of them one project may hold while another project sends too (`MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT`), or of body bytes held (`MESHBENCH_MAX_HELD_BYTES`), shutting down, or without its database (e.g. restarting), answers 503 with `Retry-After`.',
        params: z.object({ id: z.string().min(1) }),
        querystring: eventBatchQuery,
        headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }),
        response: {
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
        security: [{ bearer: [] }],
      },
      onError: countRejections(app.services.uploads.events),
    },
    async (request, reply) => {
      const mime =
        (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const format = FORMATS[mime];
      if (!format) {
        throw new AppError(
          415,
          'unsupported_media_type',
          `Content-Type must be application/x-ndjson or application/json, got "${mime || 'none'}"`,
        );
      }
      // The idempotency check compares bodies as sent (compressed or not).
      const { body, digest } = hashedBody(request, request.body as Readable);
      try {
        return await app.services.ingest.ingest(request.params.id, {
          body: bodyChunks(body),
          format,
          idempotencyKey: request.headers['idempotency-key'],
          digest,
          hold: request.holdBytes,
          lines:
            request.query.source && request.query.lines
              ? { source: request.query.source, ...request.query.lines }
              : undefined,
        });
      } catch (error) {
        // A batch rejected before its end leaves bytes on the socket: the connection cannot
        // carry another request, so it closes with this reply rather than hang the next one.
        if (!request.raw.complete) reply.header('connection', 'close');
        throw error;
      }
    },
  );

  app.get(
    '/runs/:id/events/sources/:source',
    {
      schema: {
        tags: ['events'],
        description:
          'Which lines of a source (an input that batches were cut from, named by `source` on POST /runs/{id}/events) are stored on the run: what sending it again may skip.',
        params: z.object({ id: z.string().min(1), source: eventSource }),
        response: { 200: storedSourceLines, 404: apiError },
      },
    },
    async (request) =>
      app.services.ingest.storedSourceLines(request.params.id, request.params.source),
  );

  app.get(
    '/runs/:id/events',
    {
      schema: {
        tags: ['events'],
        description:
          "The run's raw events as NDJSON, in the form POST /runs/{id}/events takes: changes, incidents, lifecycle events, observations, then clock reports; within a kind by time, then by the line's bytes, so the same events always export as the same bytes.",
        params: z.object({ id: z.string().min(1) }),
        response: { 404: apiError },
      },
    },
    async (request, reply) => {
      const { run, stream } = await app.services.export.events(request.params.id);
      const out = streamedBody(request, reply, stream, 'event export');
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="run-${run.id}-events.ndjson"`)
        .send(out as never); // a stream is piped as it is, past the JSON schemas
    },
  );
};

export default routes;
