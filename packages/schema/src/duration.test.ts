import { describe, expect, it } from 'vitest';
import {
  durationAxisUnit,
  durationTickFormatter,
  durationUnit,
  formatDurationBound,
  formatDurationDelta,
  formatDurationMs,
  formatDurationRange,
  formatDurationTick,
} from './duration.ts';

// Every expectation below was worked out by hand from the rule in duration.ts.
describe('formatDurationMs', () => {
  it('writes milliseconds below 1 s', () => {
    expect(formatDurationMs(999.4)).toBe('999.4 ms');
    expect(formatDurationMs(962.37)).toBe('962.4 ms');
    expect(formatDurationMs(72.5)).toBe('72.5 ms');
    expect(formatDurationMs(5.555)).toBe('5.56 ms');
    expect(formatDurationMs(0.1234)).toBe('0.123 ms');
    expect(formatDurationMs(0)).toBe('0.000 ms');
  });
  it('writes seconds from 1 s to below 1,000 s, four significant digits', () => {
    // Rounds up to the threshold: the larger unit, never "1,000.0 ms".
    expect(formatDurationMs(999.96)).toBe('1.000 s');
    expect(formatDurationMs(1_000)).toBe('1.000 s');
    expect(formatDurationMs(7_660)).toBe('7.660 s');
    expect(formatDurationMs(9_999)).toBe('9.999 s');
    // 9.99994 s has three decimals, and rounds to ten, which has two.
    expect(formatDurationMs(9_999.94)).toBe('10.00 s');
    expect(formatDurationMs(10_000)).toBe('10.00 s');
    expect(formatDurationMs(12_346)).toBe('12.35 s');
    expect(formatDurationMs(159_682.596)).toBe('159.7 s');
    expect(formatDurationMs(295_000)).toBe('295.0 s');
    expect(formatDurationMs(999_940)).toBe('999.9 s');
  });
  it('writes minutes from 1,000 s, four significant digits, then whole minutes', () => {
    expect(formatDurationMs(999_960)).toBe('16.67 min');
    expect(formatDurationMs(2_000_000)).toBe('33.33 min');
    expect(formatDurationMs(6_000_000)).toBe('100.0 min');
    expect(formatDurationMs(159_682_596)).toBe('2,661 min');
  });
  it('keeps the sign of a negative value and never shows a negative zero', () => {
    expect(formatDurationMs(-12.197)).toBe('-12.2 ms');
    expect(formatDurationMs(-12_346)).toBe('-12.35 s');
    expect(formatDurationMs(-720_000)).toBe('-720.0 s');
    expect(formatDurationMs(-0.0001)).toBe('0.000 ms');
  });
  it('shows the dash for no value', () => {
    expect(formatDurationMs(null)).toBe('—');
    expect(formatDurationMs(undefined)).toBe('—');
    expect(formatDurationMs(Number.NaN)).toBe('—');
  });
  it('names the unit it chose', () => {
    expect(durationUnit(999)).toEqual({ unit: 'ms', digits: 1 });
    expect(durationUnit(1_234)).toEqual({ unit: 's', digits: 3 });
    expect(durationUnit(-45_000)).toEqual({ unit: 's', digits: 2 });
    expect(durationUnit(1_000_000)).toEqual({ unit: 'min', digits: 2 });
  });
});

describe('formatDurationDelta', () => {
  it('always signs a difference, in the unit that reads', () => {
    expect(formatDurationDelta(124.5)).toBe('+124.5 ms');
    expect(formatDurationDelta(-1.234)).toBe('-1.23 ms');
    expect(formatDurationDelta(12_346)).toBe('+12.35 s');
    expect(formatDurationDelta(-90_000)).toBe('-90.00 s');
    expect(formatDurationDelta(660_000)).toBe('+660.0 s');
    expect(formatDurationDelta(1_200_000)).toBe('+20.00 min');
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
    expect(formatDurationBound(12_301, 'upper')).toBe('12.31 s');
    expect(formatDurationBound(12_399, 'lower')).toBe('12.39 s');
    expect(formatDurationBound(12_300, 'lower')).toBe('12.30 s');
    expect(formatDurationBound(612_000, 'upper')).toBe('612.0 s');
    expect(formatDurationBound(1_234_567, 'upper')).toBe('20.58 min');
    expect(formatDurationBound(1_234_567, 'lower')).toBe('20.57 min');
    // Rounding up past the threshold moves to the larger unit.
    expect(formatDurationBound(999.95, 'upper')).toBe('1.000 s');
  });
});

describe('formatDurationTick', () => {
  it('writes three significant digits, seconds from 1 s', () => {
    expect(formatDurationTick(200)).toBe('200 ms');
    expect(formatDurationTick(0.01)).toBe('0.01 ms');
    expect(formatDurationTick(999)).toBe('999 ms');
    // 999.6 prints as 1,000 at three digits: a second.
    expect(formatDurationTick(999.6)).toBe('1 s');
    expect(formatDurationTick(1_000)).toBe('1 s');
    expect(formatDurationTick(2_500)).toBe('2.5 s');
    expect(formatDurationTick(-1_500)).toBe('-1.5 s');
    expect(formatDurationTick(100_000)).toBe('100 s');
    expect(formatDurationTick(239_644.333)).toBe('240 s');
    expect(formatDurationTick(1_000_000)).toBe('16.7 min');
  });
});

describe('an axis of durations', () => {
  it('writes every tick in the unit of its largest: no "1,500 ms, 2 s"', () => {
    const f = durationTickFormatter([0, 500, 1_000, 1_500, 2_000]);
    expect([0, 500, 1_000, 1_500, 2_000].map(f)).toEqual(['0 s', '0.5 s', '1 s', '1.5 s', '2 s']);
    const ms = durationTickFormatter([0, 250, 500, 750]);
    expect([0, 250, 750].map(ms)).toEqual(['0 ms', '250 ms', '750 ms']);
  });
  it('chooses the unit by the largest tick either side of zero', () => {
    expect(durationAxisUnit([0, 999])).toBe('ms');
    expect(durationAxisUnit([-2_000, 0, 500])).toBe('s');
    expect(durationAxisUnit([0, 600_000, 999_000])).toBe('s');
    expect(durationAxisUnit([0, 600_000, 1_200_000])).toBe('min');
    expect(durationAxisUnit([])).toBe('ms');
  });
});

describe('formatDurationRange', () => {
  it('says the unit once when both ends share it', () => {
    expect(formatDurationRange(10, 20)).toBe('10.0 – 20.0 ms');
    expect(formatDurationRange(950, 1_010)).toBe('950.0 ms – 1.010 s');
    expect(formatDurationRange(12_000, 24_000)).toBe('12.00 – 24.00 s');
  });
  it('starts a span from zero at "0", never "0.000 ms"', () => {
    expect(formatDurationRange(0, 500)).toBe('0 – 500.0 ms');
    expect(formatDurationRange(0, 1_500)).toBe('0 – 1.500 s');
  });
});
