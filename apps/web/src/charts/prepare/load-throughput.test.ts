import { describe, expect, it } from 'vitest';
import { point } from './load-results.fixture.ts';
import { asRuns } from './load-results.ts';
import { percentOfTargetAxis, prepareThroughput } from './load-throughput.ts';

describe('achieved vs target rate', () => {
  it('gives the achieved rate as a share of the target', () => {
    const t = prepareThroughput(
      asRuns([
        point('both', 2, { achievedRps: 998 }),
        point('both', 4, { achievedRps: 950 }),
        point('both', 8, { achievedRps: null }),
      ]),
      'target:1000',
    );
    expect(t.noTarget).toBe(false);
    expect(t.table.map((r) => [r.connections, r.fraction])).toEqual([
      [2, 0.998],
      [4, 0.95],
    ]);
    expect(t.lines?.rows).toEqual([
      { x: 2, s0_both: 99.8 },
      { x: 4, s0_both: 95 },
    ]);
    expect(t.lines?.y.domain).toEqual([95, 100.2]);
  });

  it('says when the rate has no target', () => {
    const t = prepareThroughput(
      asRuns([point('both', 16, { targetRps: null, achievedRps: 500 })]),
      'achieved:500',
    );
    expect(t.noTarget).toBe(true);
    expect(t.lines).toBeNull();
  });

  it('shows % of target from 95 % unless a point fell further', () => {
    // 4 % of the 95-100 span above the top: 100.2.
    expect(percentOfTargetAxis([99.8, 99.9])).toEqual({
      scale: 'linear',
      domain: [95, 100.2],
      ticks: [95, 96, 97, 98, 99, 100],
    });
    // 80.2 -> 80 (down to a multiple of 5); 100.3 -> 101, + 4 % of 21 = 101.84.
    const low = percentOfTargetAxis([80.2, 100.3]);
    expect(low.domain[0]).toBe(80);
    expect(low.domain[1]).toBeCloseTo(101.84, 12);
  });
});
