// RFC 3339 strings to epoch microseconds and back, exact to the microsecond.
import { daysFromCivil, MAX_TIMESTAMP_US, RFC3339 } from '@meshbench/schema';

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;
const num2 = (s: string, i: number) => digit(s, i) * 10 + digit(s, i + 1);

/**
 * The common shape, YYYY-MM-DDTHH:MM:SS[.f{1,6}]Z, read by char codes: the hot path of a
 * 178,000-line batch. Returns undefined for anything else, which the full parser handles.
 */
function parseUtcFast(s: string): number | null | undefined {
  const n = s.length;
  if (n < 20 || n > 27 || s.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84) return undefined;
  if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined;
  for (let i = 0; i < 19; i++) {
    if (i === 4 || i === 7 || i === 10 || i === 13 || i === 16) continue;
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
  }
  let micros = 0;
  if (n > 20) {
    if (s.charCodeAt(19) !== 46 || n === 21) return undefined;
    for (let i = 20; i < n - 1; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return undefined;
      micros = micros * 10 + d;
    }
    micros *= 10 ** (6 - (n - 21));
  } else if (s.charCodeAt(19) !== 90) {
    return undefined;
  }
  return utcMicros(
    num2(s, 0) * 100 + num2(s, 2),
    num2(s, 5),
    num2(s, 8),
    num2(s, 11),
    num2(s, 14),
    num2(s, 17),
    micros,
  );
}

const byte2 = (b: Uint8Array, i: number) =>
  ((b[i] as number) - 48) * 10 + (b[i + 1] as number) - 48;

/**
 * The same common shape read from bytes b[start, end) of a body that was never decoded:
 * epoch microseconds, null for an impossible date, undefined for any other shape.
 */
export function parseUtcBytes(
  b: Uint8Array,
  start: number,
  end: number,
): number | null | undefined {
  const n = end - start;
  if (n < 20 || n > 27 || b[end - 1] !== 90 /* Z */) return undefined;
  if (b[start + 4] !== 45 || b[start + 7] !== 45 || b[start + 10] !== 84) return undefined;
  if (b[start + 13] !== 58 || b[start + 16] !== 58) return undefined;
  for (let i = 0; i < 19; i++) {
    if (i === 4 || i === 7 || i === 10 || i === 13 || i === 16) continue;
    const d = (b[start + i] as number) - 48;
    if (d < 0 || d > 9) return undefined;
  }
  let micros = 0;
  if (n > 20) {
    if (b[start + 19] !== 46 || n === 21) return undefined;
    for (let i = start + 20; i < end - 1; i++) {
      const d = (b[i] as number) - 48;
      if (d < 0 || d > 9) return undefined;
      micros = micros * 10 + d;
    }
    micros *= 10 ** (6 - (n - 21));
  } else if (b[start + 19] !== 90) {
    return undefined;
  }
  return utcMicros(
    byte2(b, start) * 100 + byte2(b, start + 2),
    byte2(b, start + 5),
    byte2(b, start + 8),
    byte2(b, start + 11),
    byte2(b, start + 14),
    byte2(b, start + 17),
    micros,
  );
}

function utcMicros(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  micros: number,
): number | null {
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 60) return null;
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
  return inRange(seconds * 1_000_000 + micros);
}

/** Epoch microseconds inside the instants the API takes (TIMESTAMP_RANGE), else null. */
const inRange = (us: number): number | null => (us >= 0 && us <= MAX_TIMESTAMP_US ? us : null);

function validDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > (DAYS_IN_MONTH[month - 1] as number))
    return false;
  return !(
    month === 2 &&
    day === 29 &&
    !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))
  );
}

/**
 * Epoch microseconds, or null when the string is not a valid RFC 3339 date-time or names an
 * instant outside TIMESTAMP_RANGE (@meshbench/schema).
 */
export function parseTimestampUs(value: string): number | null {
  const fast = parseUtcFast(value);
  if (fast !== undefined) return fast;
  const m = RFC3339.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (!validDate(year, month, day)) return null;
  // 60 is allowed for a leap second, as RFC 3339 does; it lands on the next minute's :00.
  if (hour > 23 || minute > 59 || second > 60) return null;
  let offsetMinutes = 0;
  if (offset && offset !== 'Z' && offset !== 'z') {
    const sign = offset[0] === '-' ? -1 : 1;
    const oh = Number(offset.slice(1, 3));
    const om = Number(offset.slice(4, 6));
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  // Not Date.UTC: it reads years 0-99 as 1900-1999.
  const ms =
    (daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second) * 1000 -
    offsetMinutes * 60_000;
  const micros = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0;
  return inRange(ms * 1000 + micros);
}

// Written in domain/ (the repositories and services write times too); the decoders keep
// reading it from here beside the parsers.
export { formatTimestampUs } from '../domain/timestamp-text.ts';
