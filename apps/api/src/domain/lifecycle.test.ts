import { describe, expect, it } from 'vitest';
import {
  arrivalsPerBucket,
  cumulative,
  declaredTotal,
  phaseFromArrivals,
  phaseTimeline,
  rankFor,
  steadyStart,
} from './lifecycle.ts';

describe('lifecycle phases', () => {
  it('accumulates arrivals per bucket with a rate per second', () => {
    const points = cumulative(
      new Map([
        [0, 10],
        [2, 30],
      ]),
      4,
      5000,
    );
    expect(points).toEqual([
      { offsetMs: 0, count: 10, ratePerSec: 2 },
      { offsetMs: 5000, count: 10, ratePerSec: 0 },
      { offsetMs: 10_000, count: 40, ratePerSec: 6 },
      { offsetMs: 15_000, count: 40, ratePerSec: 0 },
    ]);
  });

  it('declares totals from attrs, then the topology by phase, then what was seen', () => {
    const topology = { nodes: 1000, services: 50, instances: 20_000 };
    expect(declaredTotal('joined', 900, topology, 10)).toEqual({ total: 900, source: 'attrs' });
    expect(declaredTotal('node-joined', null, topology, 10)).toEqual({
      total: 1000,
      source: 'topology',
    });
    expect(declaredTotal('scheduled', null, topology, 10).total).toBe(20_000);
    expect(declaredTotal('running', null, topology, 10).total).toBe(20_000);
    expect(declaredTotal('registered', null, { services: 50 }, 10).total).toBe(50);
    expect(declaredTotal('leader-elected', null, topology, 3)).toEqual({
      total: 3,
      source: 'observed',
    });
    expect(declaredTotal('joined', null, {}, 7)).toEqual({ total: 7, source: 'observed' });
  });

  it('skips a zero attrs total, names the topology as the source, and falls back to what was seen', () => {
    // attrs.total 0 is no declaration: the topology's nodes count instead.
    expect(declaredTotal('joined', 0, { nodes: 5 }, 3)).toEqual({ total: 5, source: 'topology' });
    expect(declaredTotal('running', null, { instances: 8 }, 3)).toEqual({
      total: 8,
      source: 'topology',
    });
    expect(declaredTotal('registered', null, { services: 4 }, 3)).toEqual({
      total: 4,
      source: 'topology',
    });
    // A registration phase with neither instances nor services counts what was seen.
    expect(declaredTotal('registered', null, { nodes: 5 }, 3)).toEqual({
      total: 3,
      source: 'observed',
    });
  });

  it('puts arrivals in buckets from the origin, before it in the first, past the axis in the last', () => {
    // Origin 1000 ms, 3 buckets of 1 s: -1500 ms and 0 ms -> bucket 0, 1500 ms -> 1, 98 s -> 2.
    expect(arrivalsPerBucket([-500, 1000, 2500, 99_000], 1000, 3, 1000)).toEqual(
      new Map([
        [0, 2],
        [1, 1],
        [2, 1],
      ]),
    );
    expect(arrivalsPerBucket([], 0, 3, 1000)).toEqual(new Map());
  });

  it('ranks the entity that reaches a percentage', () => {
    expect(rankFor(50, 1000)).toBe(500);
    expect(rankFor(99, 1000)).toBe(990);
    expect(rankFor(100, 1000)).toBe(1000);
    expect(rankFor(50, 3)).toBe(2);
    expect(rankFor(90, 10)).toBe(9);
  });

  it('ranks by nearest rank (the least k with k/N >= p) where ceil, floor and round differ', () => {
    // N = 7: 50 % needs k >= 3.5, 90 % k >= 6.3, 99 % k >= 6.93. Rounding would give 4, 6, 7
    // and flooring 3, 6, 6: totals like 1000, 10 or 3 at 90 % cannot tell those rules apart.
    expect(rankFor(50, 7)).toBe(4);
    expect(rankFor(90, 7)).toBe(7);
    expect(rankFor(99, 7)).toBe(7);
    // N = 6: 50 % is exactly rank 3 (no epsilon pushes it to 4); 1 % of 6 is 0.06, rank 1.
    expect(rankFor(50, 6)).toBe(3);
    expect(rankFor(1, 6)).toBe(1);
    // A fractional declared total still gives a whole rank: 100 % of 2.5 needs k >= 2.5,
    // 90 % of 2.2 needs k >= 1.98.
    expect(rankFor(100, 2.5)).toBe(3);
    expect(rankFor(90, 2.2)).toBe(2);
    expect(rankFor(50, 0)).toBe(1);
  });

  it('times 90 % of 7 joined at the 7th arrival, not the 6th', () => {
    // 7 entities declared and seen, one a second: 6 of 7 is 85.7 %, short of 90 %.
    const arrivals = [1000, 2000, 3000, 4000, 5000, 6000, 7000];
    const { timeTo } = phaseTimeline(arrivals, 7, 1, 10_000);
    expect(timeTo).toEqual([
      { percent: 50, offsetMs: 4000 },
      { percent: 90, offsetMs: 7000 },
      { percent: 99, offsetMs: 7000 },
      { percent: 100, offsetMs: 7000 },
    ]);
  });

  it('times 50/90/99/100 % of the total from sorted first arrivals', () => {
    const arrivals = [-500, 1000, 2000, 3000, 9000, 12_000, 13_000, 14_000];
    const { points, timeTo } = phaseTimeline(arrivals, 10, 3, 5000);
    // Before the origin counts in the first bucket; past the axis in the last.
    expect(points.map((p) => p.count)).toEqual([4, 5, 8]);
    expect(timeTo).toEqual([
      { percent: 50, offsetMs: 9000 },
      { percent: 90, offsetMs: null },
      { percent: 99, offsetMs: null },
      { percent: 100, offsetMs: null },
    ]);
    expect(phaseTimeline(arrivals, 8, 3, 5000).timeTo.at(-1)).toEqual({
      percent: 100,
      offsetMs: 14_000,
    });
  });

  it('times a phase from arrivals per bucket and the arrivals at the ranks it needs', () => {
    // 3 seen of 4 declared, in buckets 0 and 2 of 1 s.
    const phase = {
      observed: 3,
      arrivals: new Map([
        [0, 2],
        [2, 1],
      ]),
      atRank: new Map([
        [2, 700],
        [3, 2500],
      ]),
    };
    const { points, timeTo } = phaseFromArrivals(phase, 4, 3, 1000);
    expect(points).toEqual([
      { offsetMs: 0, count: 2, ratePerSec: 2 },
      { offsetMs: 1000, count: 2, ratePerSec: 0 },
      { offsetMs: 2000, count: 3, ratePerSec: 1 },
    ]);
    // Ranks 2, 4, 4, 4 of 4: only rank 2 arrived.
    expect(timeTo.map((t) => t.offsetMs)).toEqual([700, null, null, null]);
    expect(phaseFromArrivals(phase, 3, 3, 1000).timeTo.map((t) => t.offsetMs)).toEqual([
      700, 2500, 2500, 2500,
    ]);
    // A rank the database was not asked for is a bug, never a silent null.
    expect(() => phaseFromArrivals(phase, 2, 3, 1000)).toThrow('no first arrival at rank 1');
  });
});

describe('steadyStart', () => {
  const firsts = (...ms: number[]) => Float64Array.from(ms);
  it('is when the last phase reached 100 % of its total, not the last join', () => {
    // 2 nodes joined by 10 s; 3 pods (instances) running by 60 s: steady from 60 s.
    expect(
      steadyStart(
        [
          { phase: 'joined', attrsTotal: null, firsts: firsts(5000, 10_000) },
          { phase: 'running', attrsTotal: null, firsts: firsts(20_000, 40_000, 60_000) },
        ],
        { nodes: 2, instances: 3 },
      ),
    ).toEqual({ phase: 'running', atMs: 60_000, reached: true });
  });
  it('takes the rank of 100 % of the declared total, and a phase short of it at its last arrival', () => {
    // attrs total 2: the 2nd of 4 arrivals is 100 %; 3 of 5 instances ran, the last at 30 s.
    expect(
      steadyStart(
        [
          { phase: 'scheduled', attrsTotal: 2, firsts: firsts(1000, 2000, 50_000, 70_000) },
          { phase: 'running', attrsTotal: null, firsts: firsts(10_000, 20_000, 30_000) },
        ],
        { instances: 5 },
      ),
    ).toEqual({ phase: 'running', atMs: 30_000, reached: false });
    expect(steadyStart([], {})).toBeNull();
  });
  it('skips a phase with no arrivals, and is the latest phase whatever the order', () => {
    expect(steadyStart([{ phase: 'joined', attrsTotal: null, firsts: firsts() }], {})).toBeNull();
    // The later phase comes first: the earlier one after it does not replace it.
    expect(
      steadyStart(
        [
          { phase: 'running', attrsTotal: null, firsts: firsts(10_000, 60_000) },
          { phase: 'joined', attrsTotal: null, firsts: firsts(5000, 10_000) },
          { phase: 'scheduled', attrsTotal: null, firsts: firsts() },
        ],
        {},
      ),
    ).toEqual({ phase: 'running', atMs: 60_000, reached: true });
  });
  it('breaks a tie by the phase name, in either order', () => {
    const a = { phase: 'running', attrsTotal: null, firsts: firsts(1000, 50_000) };
    const b = { phase: 'scheduled', attrsTotal: null, firsts: firsts(2000, 50_000) };
    const want = { phase: 'running', atMs: 50_000, reached: true };
    expect(steadyStart([a, b], {})).toEqual(want);
    expect(steadyStart([b, a], {})).toEqual(want);
  });
});
