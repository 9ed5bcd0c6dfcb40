import { describe, expect, it } from 'vitest';
import { peakAndSteady } from './steady-levels.ts';

describe('peakAndSteady', () => {
  it('takes the peak from interval maxima and the steady mean from the last join on', () => {
    const rows = [
      { tMs: 0, value: 10, max: 12 },
      { tMs: 1000, value: 40, max: 55 },
      { tMs: 2000, value: 8, max: 9 },
      { tMs: 3000, value: 6, max: null },
      { tMs: 4000, value: 7, max: 7 },
    ];
    // Steady from 2 s: (8 + 6 + 7) / 3 = 7.
    expect(peakAndSteady(rows, 2000)).toEqual({ peak: 55, steady: 7 });
  });

  it('has no steady value without a last join or without rows after it', () => {
    const rows = [{ tMs: 0, value: 3, max: 3 }];
    expect(peakAndSteady(rows, null)).toEqual({ peak: 3, steady: null });
    expect(peakAndSteady(rows, 1)).toEqual({ peak: 3, steady: null });
    expect(peakAndSteady([], 0)).toEqual({ peak: null, steady: null });
  });

  it('skips values that are not numbers', () => {
    const rows = [
      { tMs: 0, value: Number.NaN, max: null },
      { tMs: 5, value: 4, max: null },
    ];
    expect(peakAndSteady(rows, 0)).toEqual({ peak: 4, steady: 4 });
  });
});
