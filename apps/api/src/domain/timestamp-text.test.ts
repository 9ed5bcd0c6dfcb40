import { describe, expect, it } from 'vitest';
import { formatTimestampUs } from './timestamp-text.ts';

describe('formatTimestampUs', () => {
  it('writes epoch microseconds as RFC 3339 UTC with six fraction digits', () => {
    // 1,769,940,000 s is 2026-02-01T10:00:00Z.
    expect(formatTimestampUs(1_769_940_000_123_456)).toBe('2026-02-01T10:00:00.123456Z');
    expect(formatTimestampUs(1_769_940_000_000_000)).toBe('2026-02-01T10:00:00.000000Z');
    // The microsecond digits are padded to three: 5 us is .000005, 40 us .000040.
    expect(formatTimestampUs(5)).toBe('1970-01-01T00:00:00.000005Z');
    expect(formatTimestampUs(40)).toBe('1970-01-01T00:00:00.000040Z');
  });

  it('counts times before 1970 down from the millisecond below, and rounds a fraction of a microsecond', () => {
    // -1 us: the millisecond below is -1 ms (23:59:59.999), 999 us past it.
    expect(formatTimestampUs(-1)).toBe('1969-12-31T23:59:59.999999Z');
    expect(formatTimestampUs(-1000)).toBe('1969-12-31T23:59:59.999000Z');
    expect(formatTimestampUs(1.6)).toBe('1970-01-01T00:00:00.000002Z');
    expect(formatTimestampUs(1.4)).toBe('1970-01-01T00:00:00.000001Z');
  });
});
