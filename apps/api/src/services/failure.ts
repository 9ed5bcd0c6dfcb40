// What a failure is reported as, for the error handler and the routes that answer failures
// themselves: an AppError as it is, a lost or refused database as errors.ts's 503. Here,
// not in errors.ts, so that only code that may reach the database loads its driver.
import { AppError, databaseUnavailable } from '../errors.ts';
import { databaseUnavailableReason } from '../repositories/database.ts';

/**
 * The AppError a failure is reported as: itself, or a 503 for a lost or refused database
 * connection (a restart, a crash, no free connection in time); undefined for anything else.
 */
export function asAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const reason = databaseUnavailableReason(error);
  return reason ? databaseUnavailable(reason) : undefined;
}
