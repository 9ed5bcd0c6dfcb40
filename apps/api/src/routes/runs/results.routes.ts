// Load-test result files: posted as the runner wrote them, read back as load results.
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import {
  apiError,
  importResultsQuery,
  importResultsResponse,
  storedLoadResult,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });

async function readText(stream: Readable, limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        throw new AppError(
          413,
          'body_too_large',
          `the file is larger than the limit of ${limit} bytes (after decompression)`,
        );
      }
      parts.push(chunk as Buffer);
    }
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('Z_')) {
      throw new AppError(
        400,
        'malformed_body',
        `the body could not be decompressed: ${(error as Error).message}`,
      );
    }
    throw error;
  }
  return Buffer.concat(parts).toString('utf8');
}

const routes: FastifyPluginAsyncZod<{ maxResultBytes: number }> = async (app, opts) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post(
    '/runs/:id/results',
    {
      schema: {
        tags: ['load results'],
        description:
          "A load generator's result file as it is: Fortio JSON, Nighthawk JSON, a k6 summary (legacy or new), a wrk2 report, an SMP result (YAML or JSON) or an Istio perf CSV. `format=auto` (the default) tells them apart by content. `Content-Encoding: gzip` allowed. All points of the file are stored, or none.",
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
        },
        security: [{ bearer: [] }],
      },
      preHandler: app.requireWrite,
    },
    async (request, reply) => {
      const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
      let body = request.body as Readable;
      if (encoding === 'gzip' || encoding === 'x-gzip') body = body.pipe(createGunzip());
      else if (encoding !== 'identity') {
        throw new AppError(
          415,
          'unsupported_encoding',
          `Content-Encoding "${encoding}" is not supported; use gzip or none`,
        );
      }
      body.on('error', () => {});
      try {
        const text = await readText(body, opts.maxResultBytes);
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
        response: { 200: z.array(storedLoadResult), 404: apiError },
      },
    },
    async (request) => app.services.results.list(request.params.id),
  );
};
export default routes;
