import { describe, expect, it } from 'vitest';
import { errorCodes, prepareErrors } from './load-errors.ts';
import { point } from './load-results.fixture.ts';
import { asRuns } from './load-results.ts';

describe('errors', () => {
  it('counts errors per point, by code, largest first', () => {
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
      ]),
      'target:1000',
    );
    expect(e.total).toBe(3);
    expect(e.table.map((r) => [r.mode, r.connections, r.errors, r.fraction])).toEqual([
      ['baseline', 2, 0, 0],
      ['both', 2, 3, 0.01],
    ]);
    expect(e.bars?.rows).toEqual([{ x: 2, s0_baseline: 0, s0_both: 3 }]);
    // 3 -> 3; 3 / 4 = 0.75 -> 1.
    expect(e.bars?.y.ticks).toEqual([0, 1, 2, 3]);
  });
});
