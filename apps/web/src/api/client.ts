// The web app's API client: every response is parsed with the shared zod schema, and every
// failure becomes an ApiRequestError carrying the API's own message.
import {
  apiError,
  type ChangeList,
  type CreatedReport,
  changeList,
  createdReport,
  type ImportResultsResponse,
  importResultsResponse,
  type Propagation,
  propagation,
  type Report,
  type Run,
  type RunFacets,
  type RunList,
  report,
  run,
  runFacets,
  runList,
  type StoredLoadResult,
  storedLoadResult,
  type Tail,
  tail,
} from '@meshbench/schema';
import { type ZodType, z } from 'zod';
import {
  changesUrl,
  changeTailUrl,
  type PropagationParams,
  propagationUrl,
  type RunFilters,
  type RunListQuery,
  reportsUrl,
  reportUrl,
  resultsImportUrl,
  runFacetsUrl,
  runListUrl,
  runResultsUrl,
  runsUrl,
  runUrl,
  type TailParams,
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

/**
 * The one fetch of the app: the API's own message on a refusal, a network error named as
 * such, and every answer parsed with its zod schema.
 */
async function request<T>(url: string, init: RequestInit, schema: ZodType<T>): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      headers: { accept: 'application/json', ...init.headers },
    });
  } catch (error) {
    if (init.signal?.aborted) throw error;
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

const bearer = (token?: string): Record<string, string> =>
  token ? { authorization: `Bearer ${token}` } : {};

const getJson = <T>(
  url: string,
  schema: ZodType<T>,
  signal?: AbortSignal,
  token?: string,
): Promise<T> => request(url, { signal: signal ?? null, headers: bearer(token) }, schema);

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

// --- Browsing, comparing and sharing (issue 4) ---

const sendJson = <T>(
  method: string,
  url: string,
  body: unknown,
  schema: ZodType<T>,
  token?: string,
): Promise<T> =>
  request(
    url,
    {
      method,
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    },
    schema,
  );

const loadResultList = z.array(storedLoadResult);

export const browseApi = {
  runList: (q: RunListQuery, signal?: AbortSignal): Promise<RunList> =>
    getJson(runListUrl(q), runList, signal),
  facets: (signal?: AbortSignal): Promise<RunFacets> => getJson(runFacetsUrl(), runFacets, signal),
  tail: (
    runId: string,
    changeId: string,
    params: TailParams,
    signal?: AbortSignal,
  ): Promise<Tail> => getJson(changeTailUrl(runId, changeId, params), tail, signal),
  loadResults: (runId: string, signal?: AbortSignal): Promise<StoredLoadResult[]> =>
    getJson(runResultsUrl(runId), loadResultList, signal),
  report: (slug: string, signal?: AbortSignal): Promise<Report> =>
    getJson(reportUrl(slug), report, signal),
  /** A write: with the person's write token when they gave one. */
  createReport: (runs: string[], token?: string, title?: string): Promise<CreatedReport> =>
    sendJson('POST', reportsUrl(), title ? { runs, title } : { runs }, createdReport, token),
};

// --- Run page: result uploads (issue 6) ---

/**
 * Posts a load generator's result file as it is (the API tells the format apart), with the
 * write token when there is one; a refusal carries the API's own message.
 */
export function uploadLoadResults(
  runId: string,
  file: Blob,
  format: string,
  token?: string,
): Promise<ImportResultsResponse> {
  return request(
    resultsImportUrl(runId, format),
    {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...bearer(token) },
      body: file,
    },
    importResultsResponse,
  );
}

// --- Run page: scale-up timeline and gate verdict (issue 3) ---

/** The same parse-or-throw fetch, for feature modules that bring their own schema. */
export { getJson as getParsedJson };
