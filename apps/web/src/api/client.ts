// The web app's API client: every response is parsed with the shared zod schema, and every
// failure becomes an ApiRequestError carrying the API's own message.
import {
  apiError,
  type ChangeList,
  changeList,
  type Propagation,
  propagation,
  type Run,
  type RunList,
  run,
  runList,
} from '@meshbench/schema';
import { type ZodType, z } from 'zod';
import {
  changesUrl,
  type PropagationParams,
  propagationUrl,
  type RunFilters,
  runsUrl,
  runUrl,
} from './urls.ts';

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

async function getJson<T>(url: string, schema: ZodType<T>, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: signal ?? null,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiRequestError(0, 'network_error', `cannot reach the API (${String(error)})`);
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const problem = apiError.safeParse(body);
    throw problem.success
      ? new ApiRequestError(problem.data.statusCode, problem.data.code, problem.data.message)
      : new ApiRequestError(
          response.status,
          'http_error',
          `${response.status} ${response.statusText}`,
        );
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ApiRequestError(
      response.status,
      'invalid_response',
      `unexpected response from ${url}: ${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

export const api = {
  runs: (filters: RunFilters, signal?: AbortSignal): Promise<RunList> =>
    getJson(runsUrl(filters), runList, signal),
  run: (runId: string, signal?: AbortSignal): Promise<Run> => getJson(runUrl(runId), run, signal),
  changes: (runId: string, signal?: AbortSignal): Promise<ChangeList> =>
    getJson(changesUrl(runId), changeList, signal),
  propagation: (
    runId: string,
    changeId: string,
    params: PropagationParams,
    signal?: AbortSignal,
  ): Promise<Propagation> => getJson(propagationUrl(runId, changeId, params), propagation, signal),
};
