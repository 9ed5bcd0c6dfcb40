import { calendarProblem, daysFromCivil } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { formatTimestampUs, parseTimestampUs } from './timestamps.ts';

describe('parseTimestampUs', () => {
  it('keeps microseconds', () => {
    expect(parseTimestampUs('1970-01-01T00:00:00.000001Z')).toBe(1);
    expect(parseTimestampUs('1970-01-01T00:00:01.5Z')).toBe(1_500_000);
  });
  it('truncates below a microsecond', () => {
    expect(parseTimestampUs('1970-01-01T00:00:00.000001999Z')).toBe(1);
  });
  it('applies offsets', () => {
    expect(parseTimestampUs('1970-01-01T01:00:00+01:00')).toBe(0);
    expect(parseTimestampUs('1969-12-31T23:30:00-00:30')).toBe(0);
  });
  it('rejects what is not RFC 3339', () => {
    for (const bad of [
      '2026-02-01 10:00:00Z',
      '2026-02-01T10:00:00',
      '1706781600',
      '2026-13-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-02-01T24:00:00Z',
      '',
    ]) {
      expect(parseTimestampUs(bad), bad).toBeNull();
    }
    expect(parseTimestampUs('2024-02-29T00:00:00Z')).not.toBeNull();
  });
  it('reads the common UTC shape and the general one alike', () => {
    // 2026-02-01T10:00:00Z is 1769940000 s after the epoch.
    const base = 1_769_940_000_000_000;
    expect(parseTimestampUs('2026-02-01T10:00:00Z')).toBe(base);
    expect(parseTimestampUs('2026-02-01T10:00:00.1Z')).toBe(base + 100_000);
    expect(parseTimestampUs('2026-02-01T10:00:00.000042Z')).toBe(base + 42);
    expect(parseTimestampUs('2026-02-01t10:00:00.000042z')).toBe(base + 42);
    expect(parseTimestampUs('2026-02-01T10:00:00.000042000Z')).toBe(base + 42);
    expect(parseTimestampUs('2026-02-01T10:00:00.Z')).toBeNull();
    expect(parseTimestampUs('2026-02-01T10:00:0xZ')).toBeNull();
    expect(parseTimestampUs('2026-02-31T10:00:00Z')).toBeNull();
  });
  it('agrees with Date.parse across calendars and leap days, inside the range it takes', () => {
    const dates = [
      '1970-01-01T00:00:00Z',
      '2000-02-29T10:00:00.5Z',
      '2024-02-29T23:59:59Z',
      '2026-12-31T23:59:59.000001Z',
      '2100-03-01T00:00:00Z',
      '2200-02-28T23:59:59.999999Z',
      '2026-02-01T10:00:00+05:30',
      '1970-01-01T00:30:00+00:30',
      '2255-06-05T23:47:34.740991Z',
    ];
    for (const d of dates) {
      const fraction = /\.(\d+)/.exec(d)?.[1] ?? '';
      const micros = Number(fraction.padEnd(6, '0').slice(3, 6) || 0);
      expect(parseTimestampUs(d), d).toBe(Date.parse(d) * 1000 + micros);
    }
  });

  it('counts days as Date.parse does across calendars and years before 100', () => {
    for (const [y, m, d] of [
      [1, 1, 1],
      [50, 6, 15],
      [400, 2, 29],
      [1900, 2, 28],
      [1969, 12, 31],
      [9999, 12, 31],
    ] as const) {
      const iso = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T00:00:00Z`;
      expect(daysFromCivil(y, m, d) * 86_400_000, iso).toBe(Date.parse(iso));
    }
  });

  it('takes only instants from the epoch to the last microsecond exact in a double', () => {
    // 2^53 - 1 us after the epoch is 2255-06-05T23:47:34.740991Z; one more us rounds.
    expect(parseTimestampUs('2255-06-05T23:47:34.740991Z')).toBe(Number.MAX_SAFE_INTEGER);
    for (const d of [
      '2255-06-05T23:47:34.740992Z',
      '9999-12-31T23:59:59.999999Z',
      '1969-12-31T23:59:59.999999Z',
      '0001-01-01T00:00:00Z',
      '1970-01-01T00:00:00+00:01',
      '2255-06-05T23:47:34.740991-00:01',
    ]) {
      expect(parseTimestampUs(d), d).toBeNull();
      expect(calendarProblem(d), d).toMatch(
        /outside 1970-01-01T00:00:00Z to 2255-06-05T23:47:34.740991Z/,
      );
    }
    expect(calendarProblem('2255-06-05T23:47:34.740991Z')).toBeUndefined();
    expect(calendarProblem('1970-01-01T00:00:00Z')).toBeUndefined();
  });

  it('round-trips through the formatter', () => {
    const us = parseTimestampUs('2026-02-01T10:00:00.123456Z') as number;
    expect(formatTimestampUs(us)).toBe('2026-02-01T10:00:00.123456Z');
    expect(formatTimestampUs(parseTimestampUs('2026-02-01T11:00:00.5+01:00') as number)).toBe(
      '2026-02-01T10:00:00.500000Z',
    );
  });
});
