// What a failure is reported as, for the error handler and the routes that answer failures
// themselves: an AppError as it is, a lost or refused database as errors.ts's 503. Here,
// not in errors.ts, so that only code that may reach the database loads its driver.
import { AppError, databaseUnavailable } from '../errors.ts';
import { databaseUnavailableReason, isUploadConnectionsBusy } from '../repositories/database.ts';

/** Seconds a write refused for want of an upload connection is told to wait. */
export const RETRY_AFTER_UPLOAD_CONNECTIONS_S = 1;

/**
 * The AppError a failure is reported as: itself, or a 503 for a lost or refused database
 * connection (a restart, a crash, no free connection in time); undefined for anything else.
 */
export function asAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (isUploadConnectionsBusy(error)) {
    // The database is there: this replica's writes hold every connection they may.
    const busy = new AppError(
      503,
      'overloaded',
      `${error.message}; send the request again after Retry-After`,
    );
    busy.retryAfterS = RETRY_AFTER_UPLOAD_CONNECTIONS_S;
    return busy;
  }
  const reason = databaseUnavailableReason(error);
  return reason ? databaseUnavailable(reason) : undefined;
}
