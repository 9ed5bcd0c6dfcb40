import { describe, expect, it } from 'vitest';
import { point } from './load-results.fixture.ts';
import { asRuns, markKey } from './load-results.ts';
import { prepareTailBand } from './load-tail-band.ts';

describe('tail band', () => {
  it('marks the points whose P99 reaches the limit times P50', () => {
    const b = prepareTailBand(
      asRuns([
        point('both', 2, { p50: 1, p99: 5 }),
        point('both', 4, { p50: 2, p99: 6 }),
        point('both', 8, { p50: 0, p99: 6 }),
      ]),
      'target:1000',
      5,
    );
    expect(b.table.map((r) => [r.connections, r.ratio, r.over])).toEqual([
      [2, 5, true],
      [4, 3, false],
    ]);
    expect(b.over).toBe(1);
    expect(b.lines?.rows).toEqual([
      { x: 2, s0_both: 5, [markKey('s0_both')]: true },
      { x: 4, s0_both: 3, [markKey('s0_both')]: false },
    ]);
    // Room above the 5x line: 5.5 -> 6.
    expect(b.lines?.y.domain).toEqual([0, 6]);
    expect(
      prepareTailBand(asRuns([point('both', 2, { p50: 1, p99: 5 })]), 'target:1000', 6).over,
    ).toBe(0);
  });
});
