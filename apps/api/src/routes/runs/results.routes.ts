// Load-test result files: posted as the runner wrote them, read back as load results.
import type { Readable } from 'node:stream';
import { resultsRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';
import { limitedChunks, peekBody, readBody } from '../../ingest/body-chunks.ts';
import {
  gatlingBinaryHint,
  isSampleFormat,
  isVegetaGob,
  SNIFF_CHARS,
  sniff,
} from '../../ingest/results/index.ts';
import { firstInvalidUtf8 } from '../../ingest/stored-text.ts';
import { fromContract } from '../contract-route.ts';
import { hashedBody } from '../request-body.ts';
import { countRejections } from '../upload-rejections.ts';

const routes: FastifyPluginAsyncZod<{
  maxResultBytes: number;
  maxStreamResultBytes: number;
}> = async (app, opts) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.route({
    ...fromContract(c.import),
    onError: countRejections(app.services.uploads.results),
    handler: async (request, reply) => {
      const { format, ...step } = request.query;
      try {
        // The body decompressed, and the SHA-256 of its bytes as sent (what recognises a
        // file sent again: hashing the sent bytes, not a 4 GiB decompressed stream).
        const hashed = hashedBody(request, request.body as Readable);
        let body: AsyncIterable<Buffer> = hashed.body;
        // k6's --out json stream, named or told by its first line, is read as it arrives.
        let streamed = format === 'k6-ndjson';
        // Raw samples (hey's CSV...), named or told by their header, are read as they arrive.
        let samples = isSampleFormat(format) ? format : null;
        if (format === 'auto') {
          const peeked = await peekBody(body, SNIFF_CHARS);
          body = peeked.body;
          const kind = sniff(peeked.head.toString('utf8'));
          streamed = kind === 'k6-ndjson';
          if (isSampleFormat(kind)) samples = kind;
          // Vegeta's gob results (vegeta attack's own output) are bytes, not text.
          else if (isVegetaGob(peeked.head)) samples = 'vegeta';
        }
        const idempotencyKey = request.headers['idempotency-key'];
        if (samples !== null) {
          const result = await app.services.results.importSampleStream(
            request.params.id,
            samples,
            limitedChunks(body, opts.maxStreamResultBytes, 'MESHBENCH_MAX_STREAM_RESULT_BYTES'),
            step,
            { maxLineBytes: opts.maxResultBytes, lineSetting: 'MESHBENCH_MAX_RESULT_BYTES' },
            { idempotencyKey, digest: hashed.digest },
          );
          return reply.code(result.duplicate ? 200 : 201).send(result);
        }
        if (streamed) {
          const result = await app.services.results.importK6Stream(
            request.params.id,
            limitedChunks(body, opts.maxStreamResultBytes, 'MESHBENCH_MAX_STREAM_RESULT_BYTES'),
            step,
            { maxLineBytes: opts.maxResultBytes, lineSetting: 'MESHBENCH_MAX_RESULT_BYTES' },
            { idempotencyKey, digest: hashed.digest },
          );
          return reply.code(result.duplicate ? 200 : 201).send(result);
        }
        const bytes = await readBody(
          body,
          opts.maxResultBytes,
          'MESHBENCH_MAX_RESULT_BYTES',
          request.holdBytes,
        );
        const badByte = firstInvalidUtf8(bytes);
        if (badByte >= 0) {
          throw new AppError(
            400,
            'invalid_utf8',
            `the file is not valid UTF-8 (byte ${badByte + 1}); result files are UTF-8 text${gatlingBinaryHint(bytes)}`,
          );
        }
        const text = bytes.toString('utf8');
        const result = await app.services.results.import(request.params.id, text, format, step, {
          idempotencyKey,
          bodySha256: hashed.digest(),
        });
        return reply.code(result.duplicate ? 200 : 201).send(result);
      } catch (error) {
        if (!request.raw.complete) reply.header('connection', 'close');
        throw error;
      }
    },
  });

  app.route({
    ...fromContract(c.list),
    handler: async (request) =>
      app.services.results.list(request.params.id, request.query.percentiles ?? []),
  });

  app.route({
    ...fromContract(c.stages),
    handler: async (request) =>
      app.services.results.stages(request.params.id, request.query.percentiles),
  });
};
export default routes;
