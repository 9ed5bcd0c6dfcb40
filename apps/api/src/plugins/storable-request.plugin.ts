// What Postgres cannot store or compute with, refused at the edge for every route: the one
// place path parameters and query strings are checked, whatever the route's schema says.
// - Text (every path parameter and query value, before any schema): no NUL, no lone UTF-16
//   surrogate, no byte sequence that is not UTF-8 (ingest/stored-text.ts textProblem).
// - Numbers (a query or path value a schema made a number): finite and at most
//   QUERY_NUMBER_LIMIT either side of 0 (every number a query carries is a count, a rate, a
//   duration or a range in ms: 1e12 ms is 31 years; past it a time goes out of Postgres'
//   range or a bucket width to Infinity).
// Each is a 400 naming the parameter. JSON bodies are checked as they are parsed
// (json-bodies.plugin.ts), files and batches by their decoders.

import { MAX_DURATION_MS } from '@meshbench/schema';
import type { FastifySchemaCompiler } from 'fastify';
import fp from 'fastify-plugin';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { AppError } from '../errors.ts';
import { textProblem } from '../ingest/stored-text.ts';

/** Any number a query or path gives: MAX_DURATION_MS, the bound of the largest kind (ms). */
export const QUERY_NUMBER_LIMIT = MAX_DURATION_MS;

const PARTS = {
  params: 'path parameter',
  querystring: 'query parameter',
  query: 'query parameter',
};

function badText(part: keyof typeof PARTS, values: unknown): AppError | undefined {
  if (values === null || typeof values !== 'object') return undefined;
  for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
    const keyProblem = textProblem(key);
    if (keyProblem) {
      return new AppError(400, 'invalid_request', `${PARTS[part]} name "${key}" ${keyProblem}`, {
        field: key,
      });
    }
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v !== 'string') continue;
      // A percent-decoding that failed leaves the raw text with its % escapes.
      const problem =
        textProblem(v) ?? (/%[0-9a-f]{2}/i.test(v) && undecodable(v) ? 'is not UTF-8' : undefined);
      if (problem) {
        return new AppError(400, 'invalid_request', `${PARTS[part]} "${key}" ${problem}`, {
          field: key,
        });
      }
    }
  }
  return undefined;
}

function undecodable(v: string): boolean {
  try {
    decodeURIComponent(v);
    return false;
  } catch {
    return true;
  }
}

function badNumber(part: keyof typeof PARTS, values: unknown): AppError | undefined {
  if (values === null || typeof values !== 'object') return undefined;
  for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'number' && !(Math.abs(v) <= QUERY_NUMBER_LIMIT)) {
        return new AppError(
          400,
          'invalid_request',
          `${PARTS[part]} "${key}" is ${v}: a number here is at most ${QUERY_NUMBER_LIMIT} either side of 0`,
          { field: key },
        );
      }
    }
  }
  return undefined;
}

/** The zod validator compiler, with the number check on what it made of a query or path. */
export const storableValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const validate = validatorCompiler(route as never) as (data: unknown) => {
    value?: unknown;
    error?: Error;
  };
  const part = route.httpPart as keyof typeof PARTS | undefined;
  if (part !== 'params' && part !== 'querystring') return validate;
  return (data: unknown) => {
    const result = validate(data);
    if (result.error) return result;
    const bad = badNumber(part, result.value);
    return bad ? { error: bad } : result;
  };
};

export default fp(
  async (app) => {
    app.addHook('onRequest', async (request) => {
      const bad = badText('params', request.params) ?? badText('query', request.query);
      if (bad) throw bad;
    });
  },
  { name: 'storable-request' },
);
