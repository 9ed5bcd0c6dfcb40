// RFC 3339 timestamps: the only string form of time the API accepts or returns.
import { z } from 'zod';

/** Full RFC 3339 date-time with an explicit offset; fractions to nanoseconds are accepted. */
export const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why a string of the RFC 3339 shape names no instant (February 30, hour 25, year 0000,
 * which Postgres would store as 1 BC), or undefined when it names one.
 */
export function calendarProblem(value: string): string | undefined {
  const m = RFC3339.exec(value);
  if (!m) return 'is not an RFC 3339 timestamp';
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[];
  const offset = m[8] as string;
  if ((year as number) < 1) return 'has year 0000; years run from 0001';
  if ((month as number) < 1 || (month as number) > 12) return `has month ${m[2]}`;
  const leap =
    (year as number) % 4 === 0 && ((year as number) % 100 !== 0 || (year as number) % 400 === 0);
  const days = month === 2 && !leap ? 28 : (DAYS_IN_MONTH[(month as number) - 1] as number);
  if ((day as number) < 1 || (day as number) > days) return `has day ${m[3]} in month ${m[2]}`;
  if ((hour as number) > 23 || (minute as number) > 59 || (second as number) > 60)
    return `has no time ${m[4]}:${m[5]}:${m[6]}`;
  if (offset.length === 6 && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4)) > 59))
    return `has an offset ${offset} beyond ±23:59`;
  return undefined;
}

export const timestamp = z
  .string()
  .regex(RFC3339, 'must be an RFC 3339 timestamp with an offset, e.g. 2026-02-01T10:00:00.123456Z')
  .superRefine((value, ctx) => {
    const problem = RFC3339.test(value) ? calendarProblem(value) : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: `${problem}: not a date and time` });
  })
  .meta({ format: 'date-time', example: '2026-02-01T10:00:00.000000Z' });
