// JSON bodies of the API's JSON routes (runs, reports, projects, tokens, thresholds): read as
// bytes and refused by the place at fault when they are not UTF-8, not JSON, or carry what
// cannot be stored as sent (see ingest/stored-text.ts). Routes that read their own bodies
// (events, results, OTLP) apply the same checks themselves.
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.ts';
import { readBody } from '../ingest/body-chunks.ts';
import { findBadValue, firstInvalidUtf8 } from '../ingest/stored-text.ts';

/** The decoded body, or an AppError naming what is wrong with it and where. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0)
    throw new AppError(400, 'malformed_json', 'the body is empty; send a JSON document');
  const bad = firstInvalidUtf8(body);
  if (bad >= 0)
    throw new AppError(400, 'invalid_utf8', `the body is not valid UTF-8 (byte ${bad + 1})`);
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new AppError(
      400,
      'malformed_json',
      `the body is not valid JSON: ${(error as Error).message}`,
    );
  }
  const problem = findBadValue(value);
  if (problem) {
    throw new AppError(
      400,
      'invalid_request',
      `body field "${problem.path}" ${problem.reason}`,
      problem.path ? { field: problem.path } : {},
    );
  }
  return value;
}

export default fp(
  async (app) => {
    app.removeContentTypeParser('application/json');
    // Read here rather than by Fastify (parseAs), so that the bytes count against the
    // replica's bound on bodies held (MESHBENCH_MAX_HELD_BYTES) as they arrive.
    const limit = app.initialConfig.bodyLimit ?? 1024 * 1024;
    app.addContentTypeParser(
      'application/json',
      async (request: FastifyRequest, payload: AsyncIterable<Buffer>) =>
        parseJsonBody(await readBody(payload, limit, undefined, request.holdBytes)),
    );
  },
  { name: 'json-bodies' },
);
