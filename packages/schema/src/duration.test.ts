import { describe, expect, it } from 'vitest';
import {
  durationUnit,
  formatDurationBound,
  formatDurationDelta,
  formatDurationMs,
  formatDurationRange,
  formatDurationTick,
} from './duration.ts';

// Every expectation below was worked out by hand from the rule in duration.ts.
describe('formatDurationMs', () => {
  it('writes milliseconds below 10 s', () => {
    expect(formatDurationMs(999.4)).toBe('999.4 ms');
    expect(formatDurationMs(9_999)).toBe('9,999.0 ms');
    expect(formatDurationMs(9_999.94)).toBe('9,999.9 ms');
    expect(formatDurationMs(962.37)).toBe('962.4 ms');
    expect(formatDurationMs(5.555)).toBe('5.56 ms');
    expect(formatDurationMs(0.1234)).toBe('0.123 ms');
    expect(formatDurationMs(0)).toBe('0.000 ms');
  });
  it('writes seconds from 10 s to below 10 min, one decimal', () => {
    expect(formatDurationMs(10_000)).toBe('10.0 s');
    // Rounds up to the threshold: the larger unit, never "10,000.0 ms".
    expect(formatDurationMs(9_999.96)).toBe('10.0 s');
    expect(formatDurationMs(12_345)).toBe('12.3 s');
    expect(formatDurationMs(159_682.596)).toBe('159.7 s');
    expect(formatDurationMs(599_940)).toBe('599.9 s');
  });
  it('writes minutes from 10 min', () => {
    expect(formatDurationMs(599_960)).toBe('10.0 min');
    expect(formatDurationMs(600_000)).toBe('10.0 min');
    expect(formatDurationMs(2_000_000)).toBe('33.3 min');
    expect(formatDurationMs(159_682_596)).toBe('2,661.4 min');
  });
  it('keeps the sign of a negative value and never shows a negative zero', () => {
    expect(formatDurationMs(-12.197)).toBe('-12.2 ms');
    expect(formatDurationMs(-12_345)).toBe('-12.3 s');
    expect(formatDurationMs(-720_000)).toBe('-12.0 min');
    expect(formatDurationMs(-0.0001)).toBe('0.000 ms');
  });
  it('shows the dash for no value', () => {
    expect(formatDurationMs(null)).toBe('—');
    expect(formatDurationMs(undefined)).toBe('—');
    expect(formatDurationMs(Number.NaN)).toBe('—');
  });
  it('names the unit it chose', () => {
    expect(durationUnit(9_999)).toEqual({ unit: 'ms', digits: 1 });
    expect(durationUnit(-45_000)).toEqual({ unit: 's', digits: 1 });
    expect(durationUnit(600_000)).toEqual({ unit: 'min', digits: 1 });
  });
});

describe('formatDurationDelta', () => {
  it('always signs a difference, in the unit that reads', () => {
    expect(formatDurationDelta(124.5)).toBe('+124.5 ms');
    expect(formatDurationDelta(-1.234)).toBe('-1.23 ms');
    expect(formatDurationDelta(12_345)).toBe('+12.3 s');
    expect(formatDurationDelta(-90_000)).toBe('-90.0 s');
    expect(formatDurationDelta(660_000)).toBe('+11.0 min');
  });
  it('calls a difference that rounds to nothing zero', () => {
    expect(formatDurationDelta(0)).toBe('±0 ms');
    expect(formatDurationDelta(-0.0002)).toBe('±0 ms');
    expect(formatDurationDelta(null)).toBe('—');
  });
});

describe('formatDurationBound', () => {
  it('rounds away from the value it bounds, in the unit of the bound', () => {
    expect(formatDurationBound(11.96, 'lower')).toBe('11.9 ms');
    expect(formatDurationBound(11.96, 'upper')).toBe('12.0 ms');
    expect(formatDurationBound(12.3, 'lower')).toBe('12.3 ms');
    expect(formatDurationBound(12_301, 'upper')).toBe('12.4 s');
    expect(formatDurationBound(12_399, 'lower')).toBe('12.3 s');
    expect(formatDurationBound(12_300, 'lower')).toBe('12.3 s');
    expect(formatDurationBound(612_000, 'upper')).toBe('10.2 min');
    expect(formatDurationBound(612_000, 'lower')).toBe('10.2 min');
    expect(formatDurationBound(613_000, 'lower')).toBe('10.2 min');
    // Rounding up past the threshold moves to the larger unit.
    expect(formatDurationBound(9_999.95, 'upper')).toBe('10.0 s');
  });
});

describe('formatDurationTick', () => {
  it('writes three significant digits in the same units', () => {
    expect(formatDurationTick(200)).toBe('200 ms');
    expect(formatDurationTick(0.01)).toBe('0.01 ms');
    expect(formatDurationTick(2_500)).toBe('2,500 ms');
    expect(formatDurationTick(9_996)).toBe('10 s');
    expect(formatDurationTick(100_000)).toBe('100 s');
    expect(formatDurationTick(239_644.333)).toBe('240 s');
    expect(formatDurationTick(1_000_000)).toBe('16.7 min');
    expect(formatDurationTick(-1_500)).toBe('-1,500 ms');
    // Whole seconds read in seconds below 10 s as well.
    expect(formatDurationTick(1_000)).toBe('1 s');
    expect(formatDurationTick(-2_000)).toBe('-2 s');
    expect(formatDurationTick(999)).toBe('999 ms');
  });
});

describe('formatDurationRange', () => {
  it('says the unit once when both ends share it', () => {
    expect(formatDurationRange(10, 20)).toBe('10.0 – 20.0 ms');
    expect(formatDurationRange(9_950, 10_100)).toBe('9,950.0 ms – 10.1 s');
    expect(formatDurationRange(12_000, 24_000)).toBe('12.0 – 24.0 s');
  });
});
