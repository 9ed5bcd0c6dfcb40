// The client's two errors: the API refused (its own error body), or the API answered with
// something its schema does not allow.
import { apiError } from '@meshbench/schema';
import type { z } from 'zod';

/** A refusal or failure: the API's status, code and message (status 0: no usable answer). */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The API's error body as it came, when it had the error shape. */
    readonly body?: z.infer<typeof apiError>,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

/** A 2xx whose body does not match the route's schema: names the route and where it differs. */
export class InvalidResponseError extends ApiRequestError {
  constructor(
    readonly route: string,
    readonly issues: z.core.$ZodIssue[],
  ) {
    const first = issues[0];
    const at = first && first.path.length > 0 ? first.path.map(String).join('.') : '(root)';
    super(
      0,
      'invalid_response',
      `unexpected response from ${route}: at ${at}: ${first?.message ?? 'invalid'}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
    );
    this.name = 'InvalidResponseError';
  }

  /** The path of the first issue, as zod gives it (e.g. ["runs", 0, "id"]). */
  get path(): PropertyKey[] {
    return this.issues[0]?.path ?? [];
  }
}

const someOfApiError = apiError.partial();

/**
 * The error for a non-2xx answer: the API's error body when it has one; else what it has
 * of one (a proxy's `{code, message}`), the status for the rest.
 */
export function refusal(status: number, statusText: string, text: string): ApiRequestError {
  const json = jsonOrUndefined(text);
  const problem = apiError.safeParse(json);
  if (problem.success) {
    return new ApiRequestError(status, problem.data.code, problem.data.message, problem.data);
  }
  const some = someOfApiError.safeParse(json).data;
  return new ApiRequestError(
    status,
    some?.code ?? 'http_error',
    some?.message ?? `${status} ${statusText}`.trim(),
  );
}

/** The body as JSON: null when empty, undefined when it is not JSON (the schema then says so). */
export function jsonOrUndefined(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
