// POST /runs/{id}/events: the body is streamed to the ingest service, never buffered here.
import type { Readable } from 'node:stream';
import { eventsRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';
import { bodyChunks } from '../../ingest/body-chunks.ts';
import type { BatchFormat } from '../../ingest/events/event-stream.ts';
import { fromContract } from '../contract-route.ts';
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

  app.route({
    ...fromContract(c.post),
    onError: countRejections(app.services.uploads.events),
    handler: async (request, reply) => {
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
  });

  app.route({
    ...fromContract(c.sourceLines),
    handler: async (request) =>
      app.services.ingest.storedSourceLines(request.params.id, request.params.source),
  });

  app.route({
    ...fromContract(c.export),
    handler: async (request, reply) => {
      const { run, stream } = await app.services.export.events(request.params.id);
      const out = streamedBody(request, reply, stream, 'event export');
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="run-${run.id}-events.ndjson"`)
        .send(out as never); // a stream is piped as it is, past the JSON schemas
    },
  });
};

export default routes;
