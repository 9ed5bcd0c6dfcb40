// The one error type: every failure the API reports is an AppError mapped in app.ts. It
// imports nothing, so a pure decoder that throws one loads no database driver
// (services/failure.ts tells a lost database apart).

export class AppError extends Error {
  /** Seconds the client is told to wait before trying again (a Retry-After header). */
  retryAfterS: number | undefined;

  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly where: { line?: number; field?: string } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what: string) => new AppError(404, 'not_found', `${what} not found`);

/**
 * Seconds a client is told to wait while the database is unavailable: a PostgreSQL restart
 * takes a few; an OpenTelemetry JS exporter retries within its 10 s export timeout, so 2 s
 * lets it try 4 times across an 8 s outage.
 */
export const RETRY_AFTER_DATABASE_S = 2;

/** A 503 + Retry-After for a database that cannot be reached now. */
export function databaseUnavailable(reason: string): AppError {
  const error = new AppError(
    503,
    'database_unavailable',
    `the database is unavailable (${reason}); send the request again after Retry-After`,
  );
  error.retryAfterS = RETRY_AFTER_DATABASE_S;
  return error;
}
