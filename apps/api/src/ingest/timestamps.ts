// RFC 3339 strings to epoch microseconds and back, exact to the microsecond.
import { RFC3339 } from '@meshbench/schema';

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Epoch microseconds, or null when the string is not a valid RFC 3339 date-time. */
export function parseTimestampUs(value: string): number | null {
  const m = RFC3339.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > (DAYS_IN_MONTH[month - 1] as number)) return null;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) {
    return null;
  }
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
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
  const micros = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0;
  return ms * 1000 + micros;
}

/** RFC 3339 UTC with microseconds, as Postgres reads it and the API returns it. */
export function formatTimestampUs(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = us - ms * 1000;
  const iso = new Date(ms).toISOString(); // 2026-02-01T10:00:00.123Z
  return `${iso.slice(0, 23)}${String(Math.round(micros)).padStart(3, '0')}Z`;
}
