// The boundaries of series-math's rules that its other tests pass over (issue 28's mutation
// testing): a point exactly at the run's start, a first point exactly half in the run, equal
// consecutive totals, a histogram's reset and idle interval, extremes equal to a bound, and
// the figures that are absent rather than null. Each expected value is worked by hand from the
// rule the function's comment states.
import { describe, expect, it } from 'vitest';
import { encodeDistribution } from './distribution.ts';
import { storedRow } from './series-math.test-fixtures.ts';
import {
  type AggregateValues,
  bucketize,
  combineStats,
  mergeAggregate,
  normalize,
} from './series-math.ts';

const row = storedRow;

const raw = (values: number[]) => encodeDistribution({ form: 'raw', values });

describe('cumulative counters at the edges of the run', () => {
  it('a point exactly at the run start is a row of the run, not a reference', () => {
    // The stream began with the run: its point at the start counts whole (5), then 8 - 5.
    const rows = [
      row({ tMs: 1000, startAtMs: 1000, last: 5 }),
      row({ tMs: 2000, startAtMs: 1000, last: 8 }),
    ];
    const normal = normalize('counter', rows, 1000);
    expect(normal.map((r) => [r.tMs, r.value])).toEqual([
      [1000, 5],
      [2000, 3],
    ]);
  });

  it('a first point with as much of its time before the run as in it counts whole', () => {
    // 10 s from the stream's start to the run's, 10 s from the run's start to the point.
    const rows = [row({ tMs: 70_000, startAtMs: 50_000, last: 12 })];
    expect(combineStats('counter', normalize('counter', rows, 60_000)).sum).toBe(12);
    // One millisecond more before the run: only the reference.
    const later = [row({ tMs: 70_000, startAtMs: 49_999, last: 12 })];
    expect(combineStats('counter', normalize('counter', later, 60_000)).sum).toBe(0);
  });

  it('equal consecutive totals are an increase of 0, not a reset', () => {
    const rows = [10, 10, 12].map((last, i) => row({ tMs: 1000 * (i + 1), startAtMs: 0, last }));
    // From the start at 0 (in the run): 10 whole, then 10 - 10, then 12 - 10.
    expect(normalize('counter', rows, 0).map((r) => r.value)).toEqual([10, 0, 2]);
  });

  it('an increase counts one observation; a point that is only the reference counts none', () => {
    // 60 s before the run and 10 s in: the first point is the reference only.
    const rows = [
      row({ tMs: 10_000, startAtMs: -60_000, last: 100 }),
      row({ tMs: 20_000, startAtMs: -60_000, last: 104 }),
    ];
    const normal = normalize('counter', rows, 0);
    expect(normal.map((r) => [r.value, r.count])).toEqual([
      [0, 0],
      [4, 1],
    ]);
    expect(combineStats('counter', normal).count).toBe(1);
  });
});

describe('cumulative histograms', () => {
  // One stream since 0, in the run from 0.
  const point = (tMs: number, count: number, sum: number, min: number | null, max: number | null) =>
    row({ tMs, startAtMs: 0, count, sum, min, max });

  it('a point with no new observation is an increase of none, with no extremes', () => {
    const rows = [point(1000, 3, 30, 5, 15), point(2000, 3, 30, 5, 15)];
    const normal = normalize('histogram', rows, 0);
    expect(normal.map((r) => [r.count, r.sum])).toEqual([
      [3, 30],
      [0, 0],
    ]);
    const idle = normal[1];
    expect([idle?.min, idle?.max, idle?.minBound, idle?.maxBound]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    // A bucket holding only the idle interval has no mean.
    const [b] = bucketize('histogram', normal.slice(1), 0, 1000, 1);
    expect(b).toMatchObject({ count: 0, value: null });
  });

  it('a count that drops is a restart: the point counts whole', () => {
    const rows = [point(1000, 5, 50, 2, 20), point(2000, 2, 7, 3, 4)];
    const normal = normalize('histogram', rows, 0);
    expect(normal.map((r) => [r.count, r.sum, r.min, r.max])).toEqual([
      [5, 50, 2, 20],
      [2, 7, 3, 4],
    ]);
  });

  it('a point only the reference has no extremes of its own', () => {
    // 60 s before the run, 10 s in: the first point is the reference; the second adds 2
    // observations without moving the stream's min 1 or max 100, which only bound them.
    const rows = [
      row({ tMs: 10_000, startAtMs: -60_000, count: 5, sum: 200, min: 1, max: 100 }),
      row({ tMs: 20_000, startAtMs: -60_000, count: 7, sum: 260, min: 1, max: 100 }),
    ];
    expect(combineStats('histogram', normalize('histogram', rows, 0), [])).toMatchObject({
      count: 2,
      sum: 60,
      min: null,
      max: null,
      streamMin: 1,
      streamMax: 100,
    });
  });

  it('extremes are new only where both points state them', () => {
    // The previous point states no min or max: the increase's are unknown, only bounded.
    const rows = [
      row({ tMs: 1000, startAtMs: 0, count: 2, sum: 2, min: null, max: null }),
      row({ tMs: 2000, startAtMs: 0, count: 4, sum: 50, min: -1, max: 50 }),
    ];
    const inc = normalize('histogram', rows, 0)[1];
    expect([inc?.min, inc?.max, inc?.minBound, inc?.maxBound]).toEqual([null, null, -1, 50]);
  });

  it('a bound equal to a known extreme leaves that extreme known', () => {
    // Stream A's min moved to 2 (known); stream B's did not move from 2 (bound 2): the rows'
    // min is 2. Likewise A's max 90 that did not move and B's new max 90.
    const a = [
      row({ tMs: 1000, startAtMs: 0, count: 1, sum: 5, min: 5, max: 90 }),
      row({ tMs: 2000, startAtMs: 0, count: 2, sum: 7, min: 2, max: 90 }),
    ];
    const b = [
      row({ tMs: 1000, startAtMs: 10, count: 1, sum: 2, min: 2, max: 40 }),
      row({ tMs: 2000, startAtMs: 10, count: 2, sum: 92, min: 2, max: 90 }),
    ];
    const increases = normalize('histogram', [...a, ...b], 0).filter((r) => r.tMs === 2000);
    expect(combineStats('histogram', increases, [])).toMatchObject({ min: 2, max: 90 });
    expect(combineStats('histogram', increases, []).streamMin).toBeUndefined();
    expect(combineStats('histogram', increases, []).streamMax).toBeUndefined();
  });

  it('an interval with no observation does not count as before the run', () => {
    // Reference at -500; no observation by 1000; one more by 2000 (counted from 1000).
    const rows = [point(-500, 3, 30, 5, 15), point(1000, 3, 30, 5, 15), point(2000, 4, 40, 5, 15)];
    const stats = combineStats('histogram', normalize('histogram', rows, 0), [], 0);
    expect(stats.count).toBe(1);
    expect(stats.beforeRunMs).toBeUndefined();
  });
});

describe('plain rows', () => {
  it('a counter interval that straddles the run start is flagged; one starting at it is not', () => {
    expect(
      combineStats('counter', normalize('counter', [row({ tMs: 0, sum: 4 })], 500), [], 500),
    ).toMatchObject({ sum: 4, beforeRunMs: 500 });
    const atStart = combineStats(
      'counter',
      [normalize('counter', [row({ tMs: 500, sum: 4 })], 500)].flat(),
      [],
      500,
    );
    expect(atStart.beforeRunMs).toBeUndefined();
  });

  it('a level has no time it was counted from', () => {
    const stats = combineStats(
      'gauge',
      normalize('gauge', [row({ tMs: 0, last: 3 })], 500),
      [],
      500,
    );
    expect(stats.beforeRunMs).toBeUndefined();
  });

  it('a gauge with a value but no extremes has the value as both', () => {
    const [n] = normalize('gauge', [row({ tMs: 0, last: 7 })], 0);
    expect([n?.value, n?.min, n?.max]).toEqual([7, 7, 7]);
  });

  it('a gauge row with a start time is still a level, never differenced', () => {
    const rows = [
      row({ tMs: 1000, startAtMs: 0, last: 10 }),
      row({ tMs: 2000, startAtMs: 0, last: 4 }),
    ];
    expect(normalize('gauge', rows, 0).map((r) => r.value)).toEqual([10, 4]);
  });

  it('only up-down counters sum deltas: a gauge row without a value stays without one', () => {
    const [n] = normalize('gauge', [row({ tMs: 0, sum: 5 })], 0);
    expect(n?.value).toBeNaN();
  });

  it("an up-down counter's deltas are summed in time order, then in the order written", () => {
    const rows = [
      row({ tMs: 1000, sum: -2, lastAtMs: 1500 }),
      row({ tMs: 0, sum: 5, lastAtMs: 900 }),
      row({ tMs: 0, sum: 1, lastAtMs: 400 }),
    ];
    // 1 (written at 400), then 1 + 5, then 6 - 2.
    expect(normalize('updowncounter', rows, 0).map((r) => r.value)).toEqual([1, 6, 4]);
  });

  it('a level written without a time counts as written at the end of its interval', () => {
    // One replica wrote 1 at 500; the other's 2 has no time: taken as 0 + 1000, later.
    const rows = [row({ tMs: 0, last: 1, lastAtMs: 500 }), row({ tMs: 0, last: 2 })];
    expect(combineStats('gauge', normalize('gauge', rows, 0)).last).toBe(2);
    const swapped = [row({ tMs: 0, last: 2 }), row({ tMs: 0, last: 1, lastAtMs: 500 })];
    expect(combineStats('gauge', normalize('gauge', swapped, 0)).last).toBe(2);
  });

  it("a gauge's exact decimal text is given only when a row has one", () => {
    const big = '9007199254740993';
    const exact = combineStats(
      'gauge',
      normalize('gauge', [row({ last: 2 ** 53, lastExact: big })], 0),
    );
    expect(exact.lastExact).toBe(big);
    const plain = combineStats('gauge', normalize('gauge', [row({ last: 3 })], 0));
    expect('lastExact' in plain).toBe(false);
  });
});

describe('sets', () => {
  it("a set's extremes are its rows' member counts; it has no sum", () => {
    const rows = [
      row({ tMs: 0, members: ['a', 'b'] }),
      row({ tMs: 1000, members: ['a', 'b', 'c'] }),
      row({ tMs: 2000, members: ['c'] }),
    ];
    expect(combineStats('set', normalize('set', rows, 0))).toMatchObject({
      count: 3,
      min: 1,
      max: 3,
      sum: null,
      last: 1,
    });
  });

  it('merging set aggregates without members keeps the level as it was', () => {
    const into: AggregateValues = {
      count: 1,
      sum: null,
      min: null,
      max: null,
      last: 4,
      lastAtMs: null,
      members: null,
      sketch: null,
    };
    mergeAggregate('set', into, { ...into, last: 2 });
    expect(into.last).toBe(4);
  });
});

describe('percentiles that are absent', () => {
  it('no percentile asked: none given', () => {
    const rows = [row({ tMs: 0, count: 2, sum: 3, min: 1, max: 2, sketch: raw([1, 2]) })];
    const stats = combineStats('timer', normalize('timer', rows, 0), []);
    expect('percentiles' in stats).toBe(false);
  });

  it("a summary's only quantiles in its first row are given", () => {
    const rows = [
      row({ tMs: 0, count: 2, sum: 4, quantiles: [{ q: 0.5, value: 2 }] }),
      row({ tMs: 1000, count: 1, sum: 1 }),
    ];
    expect(combineStats('summary', normalize('summary', rows, 0)).percentiles).toEqual([
      { p: 50, value: 2, exact: false, method: 'summary' },
    ]);
  });
});
