// POST /runs/{id}/events: the body is streamed to the ingest service, never buffered here.
import { createHash } from 'node:crypto';
import { PassThrough, type Readable, Transform } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { apiError, ingestResult } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { BatchFormat } from '../../ingest/event-stream.ts';

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
          'A batch of probe events: `application/x-ndjson` (one event per line) or `application/json` (an array); `Content-Encoding: gzip` allowed. Atomic: all stored or none. A 4xx names the line and field at fault. Retries with the same `Idempotency-Key` are acknowledged and stored once.',
        params: z.object({ id: z.string().min(1) }),
        headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }),
        response: {
          200: ingestResult,
          400: apiError,
          401: apiError,
          404: apiError,
          409: apiError,
          413: apiError,
          415: apiError,
          422: apiError,
        },
        security: [{ bearer: [] }],
      },
      preHandler: app.requireWrite,
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
      const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
      // The idempotency check compares bodies as sent (compressed or not): hash them here.
      const hash = createHash('sha256');
      let digest: string | undefined;
      let body: Readable = (request.body as Readable).pipe(
        new Transform({
          transform(chunk, _encoding, done) {
            hash.update(chunk);
            done(null, chunk);
          },
          flush(done) {
            digest = hash.digest('hex');
            done();
          },
        }),
      );
      if (encoding === 'gzip' || encoding === 'x-gzip') body = body.pipe(createGunzip());
      else if (encoding === 'deflate') body = body.pipe(createInflate());
      else if (encoding !== 'identity') {
        throw new AppError(
          415,
          'unsupported_encoding',
          `Content-Encoding "${encoding}" is not supported; use gzip or none`,
        );
      }
      body.on('error', () => {}); // surfaced by the iteration below
      try {
        return await app.services.ingest.ingest(request.params.id, {
          body: gzipErrors(body),
          format,
          idempotencyKey: request.headers['idempotency-key'],
          digest: () => digest ?? '',
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
    '/runs/:id/events',
    {
      schema: {
        tags: ['events'],
        description:
          "The run's raw events as NDJSON, in the form POST /runs/{id}/events takes: changes, incidents, lifecycle events, then observations.",
        params: z.object({ id: z.string().min(1) }),
        response: { 404: apiError },
      },
    },
    async (request, reply) => {
      const { run, stream } = await app.services.export.events(request.params.id);
      const out = new PassThrough();
      // A client that stops reading must not hold the export (and its transaction, on the
      // embedded database the only connection) open: its going away ends the export.
      let gone = false;
      reply.raw.on('close', () => {
        gone = true;
        out.destroy();
      });
      const write = (lines: string) =>
        new Promise<void>((resolve, reject) => {
          if (gone || out.destroyed) return reject(new Error('the client went away'));
          if (out.write(lines)) return resolve();
          const onClose = () => reject(new Error('the client went away'));
          out.once('close', onClose);
          out.once('drain', () => {
            out.off('close', onClose);
            resolve();
          });
        });
      stream(write).then(
        () => out.end(),
        (error) => {
          if (!gone) request.log.error({ err: error }, 'event export failed');
          out.destroy();
        },
      );
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="run-${run.id}-events.ndjson"`)
        .send(out as never); // a stream is piped as it is, past the JSON schemas
    },
  );
};

async function* gzipErrors(body: Readable): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) yield chunk as Buffer;
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_')) {
      throw new AppError(
        400,
        'malformed_body',
        `the body could not be decompressed: ${(error as Error).message}`,
      );
    }
    throw error;
  }
}
export default routes;
