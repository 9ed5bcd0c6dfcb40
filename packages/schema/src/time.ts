// RFC 3339 timestamps: the only string form of time the API accepts or returns.
import { z } from 'zod';

/** Full RFC 3339 date-time with an explicit offset; fractions to nanoseconds are accepted. */
export const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The instants the API takes, as one range everywhere a timestamp is read: from the Unix
 * epoch to the last microsecond whose count since it is exact in a double (2^53 - 1 us).
 * Every instant in it is stored, computed with and written back as sent, to the
 * microsecond; past it a microsecond count rounds (9999-12-31T23:59:59.999999Z read back as
 * year 10000), and before it the clocks meshbench takes times from did not exist.
 */
export const EARLIEST_TIMESTAMP = '1970-01-01T00:00:00Z';
export const LATEST_TIMESTAMP = '2255-06-05T23:47:34.740991Z';
export const MAX_TIMESTAMP_US = Number.MAX_SAFE_INTEGER;
export const TIMESTAMP_RANGE = `${EARLIEST_TIMESTAMP} to ${LATEST_TIMESTAMP}`;

/**
 * The most a duration, offset or range a request gives in ms may be, either side of 0
 * (1e12 ms, 31 years): past it a time moved by it leaves the range above, and a bucket width
 * of a range goes to Infinity.
 */
export const MAX_DURATION_MS = 1e12;

/** Postgres' integer (int4): the columns that count connections, proxies, generators. */
export const INT4_MAX = 2_147_483_647;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Why epoch microseconds are outside the instants the API takes, or undefined. */
export function timestampRangeProblem(us: number): string | undefined {
  return us >= 0 && us <= MAX_TIMESTAMP_US
    ? undefined
    : `is outside ${TIMESTAMP_RANGE}, the instants kept to the microsecond`;
}

/**
 * Why a string of the RFC 3339 shape names no instant (February 30, hour 25, year 0000,
 * which Postgres would store as 1 BC) or one outside TIMESTAMP_RANGE, or undefined.
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
  const offsetMinutes =
    offset.length === 6
      ? (offset[0] === '-' ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4)))
      : 0;
  const seconds =
    daysFromCivil(year as number, month as number, day as number) * 86_400 +
    (hour as number) * 3600 +
    (minute as number) * 60 +
    (second as number) -
    offsetMinutes * 60;
  const micros = Number((m[7] ?? '').slice(0, 6).padEnd(6, '0'));
  return timestampRangeProblem(seconds * 1_000_000 + micros);
}

export const timestamp = z
  .string()
  .regex(RFC3339, 'must be an RFC 3339 timestamp with an offset, e.g. 2026-02-01T10:00:00.123456Z')
  .superRefine((value, ctx) => {
    const problem = RFC3339.test(value) ? calendarProblem(value) : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ format: 'date-time', example: '2026-02-01T10:00:00.000000Z' });
