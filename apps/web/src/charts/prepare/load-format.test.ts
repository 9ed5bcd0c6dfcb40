import { describe, expect, it } from 'vitest';
import { formatCores, formatMiB, formatRatio, formatRpsCell } from './load-format.ts';

describe('number formats', () => {
  it('writes cores, MiB, ratios and rates as the tables show them', () => {
    expect(formatCores(0.499799)).toBe('0.5');
    expect(formatCores(2.080446)).toBe('2.08');
    expect(formatCores(null)).toBe('—');
    expect(formatMiB(64.5)).toBe('64.5');
    expect(formatMiB(56)).toBe('56.0');
    expect(formatRatio(9.436664 / 3.569941)).toBe('2.6×');
    expect(formatRpsCell(998.2225684886798)).toBe('998.22');
    expect(formatRpsCell(1000)).toBe('1,000');
    expect(formatRpsCell(null)).toBe('—');
  });
});
