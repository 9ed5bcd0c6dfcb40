// Load-test result files: posted as the runner wrote them, read back as load results.
import type { Readable } from 'node:stream';
import {
  apiError,
  importResultsQuery,
  importResultsResponse,
  listResultsQuery,
  storedLoadResult,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { firstInvalidUtf8 } from '../../ingest/stored-text.ts';
import { decodedBody, readBody } from '../request-body.ts';
import { countRejections } from '../upload-rejections.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });

const routes: FastifyPluginAsyncZod<{ maxResultBytes: number }> = async (app, opts) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post(
    '/runs/:id/results',
    {
      schema: {
        tags: ['load results'],
        description:
          "A load generator's result file as it is: Fortio JSON, Nighthawk JSON, a k6 summary (legacy or new), a wrk2 report, an SMP result (YAML or JSON) or an Istio perf CSV. `format=auto` (the default) tells them apart by content (the kind from the first 64 KiB: JSON, YAML, wrk2 text or CSV). `Content-Encoding: gzip` allowed. All points of the file are stored, or none. Limits: `MESHBENCH_MAX_RESULT_BYTES` after decompression (default 8 MiB), 1 MiB for a YAML file, 10,000 load results a file, 1,000 percentiles or histogram buckets a result; past them 413. A YAML file that takes more than 5 s or 128 MB to parse gets 422. While the database is unavailable (e.g. restarting) the answer is 503 with `Retry-After`.",
        params: runParams,
        querystring: importResultsQuery,
        response: {
          201: importResultsResponse,
          400: apiError,
          401: apiError,
          404: apiError,
          413: apiError,
          415: apiError,
          422: apiError,
          503: apiError,
        },
        security: [{ bearer: [] }],
      },
      onError: countRejections(app.services.uploads.results),
    },
    async (request, reply) => {
      const body = decodedBody(request, request.body as Readable);
      try {
        const bytes = await readBody(body, opts.maxResultBytes, 'MESHBENCH_MAX_RESULT_BYTES');
        const badByte = firstInvalidUtf8(bytes);
        if (badByte >= 0) {
          throw new AppError(
            400,
            'invalid_utf8',
            `the file is not valid UTF-8 (byte ${badByte + 1}); result files are UTF-8 text`,
          );
        }
        const text = bytes.toString('utf8');
        const result = await app.services.results.import(
          request.params.id,
          text,
          request.query.format,
        );
        return reply.code(201).send(result);
      } catch (error) {
        if (!request.raw.complete) reply.header('connection', 'close');
        throw error;
      }
    },
  );

  app.get(
    '/runs/:id/results',
    {
      schema: {
        tags: ['load results'],
        params: runParams,
        querystring: listResultsQuery,
        response: { 200: z.array(storedLoadResult), 400: apiError, 404: apiError },
      },
    },
    async (request) =>
      app.services.results.list(request.params.id, request.query.percentiles ?? []),
  );
};
export default routes;
