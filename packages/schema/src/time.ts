// RFC 3339 timestamps: the only string form of time the API accepts or returns.
import { z } from 'zod';

/** Full RFC 3339 date-time with an explicit offset; fractions to nanoseconds are accepted. */
export const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

export const timestamp = z
  .string()
  .regex(RFC3339, 'must be an RFC 3339 timestamp with an offset, e.g. 2026-02-01T10:00:00.123456Z')
  .meta({ format: 'date-time', example: '2026-02-01T10:00:00.000000Z' });
