import { describe, expect, it } from 'vitest';
import {
  formatCount,
  formatDuration,
  formatElapsed,
  formatMs,
  formatMsValue,
  formatPercent,
  formatTimestamp,
  msDecimals,
  NO_VALUE,
} from './format.ts';

describe('formatCount', () => {
  it('groups thousands', () => {
    expect(formatCount(19988)).toBe('19,988');
    expect(formatCount(1_000_000)).toBe('1,000,000');
    expect(formatCount(0)).toBe('0');
    expect(formatCount(12)).toBe('12');
  });
  it('shows a dash for no value', () => {
    expect(formatCount(null)).toBe(NO_VALUE);
    expect(formatCount(undefined)).toBe(NO_VALUE);
  });
});

describe('formatMs', () => {
  it('uses fewer decimals as latencies grow', () => {
    expect(msDecimals(0.5)).toBe(3);
    expect(msDecimals(9.99)).toBe(2);
    expect(msDecimals(10)).toBe(1);
    expect(msDecimals(9999)).toBe(1);
    expect(msDecimals(10_000)).toBe(0);
    expect(msDecimals(-12.197)).toBe(1);
  });
  it('formats the demo percentiles as a mesh engineer would quote them', () => {
    expect(formatMsValue(71.451)).toBe('71.5');
    expect(formatMsValue(962.37)).toBe('962.4');
    expect(formatMsValue(4766.221126375825)).toBe('4,766.2');
    expect(formatMsValue(159682.596)).toBe('159,683');
    expect(formatMsValue(-12.197)).toBe('-12.2');
    expect(formatMsValue(0.1234)).toBe('0.123');
    expect(formatMsValue(5.555)).toBe('5.56');
  });
  it('never shows a negative zero', () => {
    expect(formatMsValue(-0.0001)).toBe('0.000');
    expect(formatMsValue(0)).toBe('0.000');
  });
  it('adds the unit', () => {
    expect(formatMs(564.2)).toBe('564.2 ms');
    expect(formatMs(null)).toBe(NO_VALUE);
  });
});

describe('formatPercent', () => {
  it('shows one decimal', () => {
    expect(formatPercent(0.961)).toBe('96.1 %');
    expect(formatPercent(0.966)).toBe('96.6 %');
    expect(formatPercent(1)).toBe('100.0 %');
    expect(formatPercent(0.00049)).toBe('0.0 %');
    expect(formatPercent(0.9994)).toBe('99.9 %');
  });
  it('shows a dash without a fraction', () => {
    expect(formatPercent(null)).toBe(NO_VALUE);
  });
});

describe('formatDuration', () => {
  it('switches to seconds at one second (duration.ts)', () => {
    expect(formatDuration(200)).toBe('200 ms');
    expect(formatDuration(999)).toBe('999 ms');
    expect(formatDuration(1000)).toBe('1 s');
    expect(formatDuration(2500)).toBe('2.5 s');
    expect(formatDuration(100_000)).toBe('100 s');
    expect(formatDuration(0.01)).toBe('0.01 ms');
    expect(formatDuration(239_644.333)).toBe('240 s');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(16.667)).toBe('16.7 ms');
  });
});

describe('times', () => {
  it('writes timestamps in UTC to the second', () => {
    expect(formatTimestamp('2026-02-01T09:59:00.000Z')).toBe('2026-02-01 09:59:00 UTC');
    expect(formatTimestamp('2026-02-01T11:00:00.5+01:00')).toBe('2026-02-01 10:00:00 UTC');
    expect(formatTimestamp(null)).toBe(NO_VALUE);
  });
  it('writes elapsed time', () => {
    expect(formatElapsed(360_000)).toBe('6 min 0 s');
    expect(formatElapsed(42_400)).toBe('42 s');
    expect(formatElapsed(3_600_000 + 5 * 60_000)).toBe('1 h 5 min');
  });
});
