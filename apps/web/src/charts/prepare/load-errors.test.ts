import { describe, expect, it } from 'vitest';
import { countKeys, errorCodes, prepareErrors } from './load-errors.ts';
import { formatErrorRate } from './load-format.ts';
import { point } from './load-results.fixture.ts';
import { asRuns } from './load-results.ts';

describe('errors', () => {
  it('draws errors as a % of requests, with the counts kept for the tooltip', () => {
    expect(errorCodes({ '503': 2, '-1': 5, '500': 2 })).toEqual([
      { code: '-1', count: 5 },
      { code: '500', count: 2 },
      { code: '503', count: 2 },
    ]);
    const e = prepareErrors(
      asRuns([
        point('baseline', 2, { errors: 0 }),
        point('both', 2, { errors: 3, requests: 300, errorsByCode: { '503': 3 } }),
        point('both', 4, { errors: null }),
        point('both', 8, { errors: 2, requests: null }),
      ]),
      'target:1000',
    );
    expect(e.total).toBe(5);
    expect(e.withoutRequests).toBe(1);
    expect(e.table.map((r) => [r.mode, r.connections, r.errors, r.fraction])).toEqual([
      ['baseline', 2, 0, 0],
      ['both', 2, 3, 0.01],
      ['both', 8, 2, null],
    ]);
    // 3 of 300 = 1 %; baseline 0 of 30,000 (the fixture's requests).
    expect(e.lines?.rows).toEqual([
      {
        x: 2,
        s0_baseline: 0,
        s0_both: 1,
        [countKeys('s0_baseline').errors]: 0,
        [countKeys('s0_baseline').requests]: 30_000,
        [countKeys('s0_both').errors]: 3,
        [countKeys('s0_both').requests]: 300,
      },
    ]);
    // 1 -> 1; 1 / 4 = 0.25.
    expect(e.lines?.y.ticks).toEqual([0, 0.25, 0.5, 0.75, 1]);
  });

  it('draws along the rate at one connection count', () => {
    const e = prepareErrors(
      asRuns([
        point('both', 16, { targetRps: null, achievedRps: 500, errors: 1, requests: 1000 }),
        point('both', 16, { targetRps: null, achievedRps: 2000, errors: 10, requests: 4000 }),
        point('both', 8, { targetRps: null, achievedRps: 2000, errors: 9, requests: 9 }),
      ]),
      { axis: 'rps', key: 'connections:16' },
    );
    // 1 / 1000 = 0.1 %, 10 / 4000 = 0.25 %.
    expect(e.lines?.rows.map((r) => [r.x, r.s0_both])).toEqual([
      [500, 0.1],
      [2000, 0.25],
    ]);
    expect(e.lines?.x.scale).toBe('linear');
  });

  it('writes small rates with their digits', () => {
    expect(formatErrorRate(0)).toBe('0 %');
    expect(formatErrorRate(0.0067)).toBe('0.007 %');
    expect(formatErrorRate(2.345)).toBe('2.35 %');
    expect(formatErrorRate(12.34)).toBe('12.3 %');
  });
});
