// Tests for the mutants of series-math.ts that survived its measurement at 5c45953 (issue 28):
// each case names the rule it holds and is worked by hand from that rule's comment.
import { describe, expect, it } from 'vitest';
import { encodeDistribution } from './distribution.ts';
import { storedRow } from './series-math.test-fixtures.ts';
import {
  type AggregateValues,
  bucketize,
  combineStats,
  lastSnapshot,
  mergeAggregate,
  type NormalRow,
  normalize,
} from './series-math.ts';

const row = storedRow;

const agg = (over: Partial<AggregateValues>): AggregateValues => ({
  count: 1,
  sum: null,
  min: null,
  max: null,
  last: null,
  lastAtMs: null,
  members: null,
  sketch: null,
  ...over,
});

const normal = (over: Partial<NormalRow>): NormalRow => ({
  tMs: 0,
  value: 0,
  count: 1,
  sum: 0,
  min: null,
  max: null,
  minBound: null,
  maxBound: null,
  fromMs: null,
  atMs: 0,
  members: null,
  sketch: null,
  lastExact: null,
  quantiles: null,
  ...over,
});

const raw = (values: number[]) => encodeDistribution({ form: 'raw', values });

describe('mergeAggregate with figures missing or below zero', () => {
  it('two aggregates without a sum have none', () => {
    const into = agg({});
    mergeAggregate('timer', into, agg({}));
    expect(into.sum).toBeNull();
  });

  it('a max below zero is kept against a max of none, either way round', () => {
    const into = agg({ max: -5 });
    mergeAggregate('gauge', into, agg({}));
    expect(into.max).toBe(-5);
    const none = agg({});
    mergeAggregate('gauge', none, agg({ max: -3 }));
    expect(none.max).toBe(-3);
  });
});

describe('normalize', () => {
  it('an up-down counter sent as values (cumulative) keeps them; only deltas are summed', () => {
    const rows = [row({ tMs: 0, last: 5 }), row({ tMs: 1000, last: 3 })];
    expect(normalize('updowncounter', rows, 0).map((r) => r.value)).toEqual([5, 3]);
  });

  it("a cumulative Summary's quantiles are kept as sent", () => {
    const rows = [
      row({ tMs: 1000, startAtMs: 0, count: 4, sum: 8, quantiles: [{ q: 0.5, value: 2 }] }),
      row({ tMs: 2000, startAtMs: 0, count: 6, sum: 12, quantiles: [{ q: 0.5, value: 3 }] }),
    ];
    const stats = combineStats('summary', normalize('summary', rows, 0));
    expect(stats).toMatchObject({ count: 6, sum: 12 });
    expect(stats.percentiles).toEqual([{ p: 50, value: 3, exact: false, method: 'summary' }]);
  });

  it('a histogram point without buckets after one with them: counts differ, no sketch', () => {
    const rows = [
      row({ tMs: 1000, startAtMs: 0, count: 2, sum: 3, sketch: raw([1, 2]) }),
      row({ tMs: 2000, startAtMs: 0, count: 3, sum: 6 }),
    ];
    const inc = normalize('histogram', rows, 0)[1];
    expect([inc?.count, inc?.sum, inc?.sketch]).toEqual([1, 3, null]);
  });
});

describe('extremes', () => {
  it("a counter's min is its smallest interval total, wherever it falls", () => {
    const rows = [row({ tMs: 0, sum: 1 }), row({ tMs: 1000, sum: 15 }), row({ tMs: 2000, sum: 4 })];
    expect(combineStats('counter', normalize('counter', rows, 0))).toMatchObject({
      min: 1,
      max: 15,
    });
  });

  it("a counter bucket's min and max are of interval totals, replicas added", () => {
    const rows = [row({ tMs: 0, sum: 10 }), row({ tMs: 0, sum: 5 }), row({ tMs: 1000, sum: 1 })];
    const [b] = bucketize('counter', normalize('counter', rows, 0), 0, 2000, 1);
    expect(b).toMatchObject({ value: 16, min: 1, max: 15 });
  });

  it('a row without extremes leaves a max below zero as it is', () => {
    const rows = [normal({ min: -5, max: -3 }), normal({ count: 0 })];
    expect(combineStats('timer', rows, [])).toMatchObject({ min: -5, max: -3 });
  });

  it('the lowest and highest bounds are kept, in whatever order the rows come', () => {
    const rows = [
      normal({ minBound: 1, maxBound: 100 }),
      normal({ minBound: 5, maxBound: 50 }),
      normal({}),
    ];
    const stats = combineStats('timer', rows, []);
    expect(stats).toMatchObject({ min: null, max: null, streamMin: 1, streamMax: 100 });
  });

  it('a bound beyond the known extremes makes them unknown', () => {
    // Known min 5 and max 50, but another row's values reach down to 1 and up to 90.
    const rows = [normal({ min: 5, max: 50 }), normal({ minBound: 1, maxBound: 90 })];
    expect(combineStats('timer', rows, [])).toMatchObject({
      min: null,
      max: null,
      streamMin: 1,
      streamMax: 90,
    });
  });
});

describe('lastSnapshot and sets', () => {
  it('a later write of an earlier time is not the last snapshot', () => {
    const at2000 = normal({ tMs: 2000, atMs: 2100 });
    const at1000 = normal({ tMs: 1000, atMs: 2500 });
    expect(lastSnapshot([at2000, at1000])).toEqual([at2000]);
  });

  it("a set's count is its distinct members, not its rows; rows without members add none", () => {
    const rows = [
      row({ tMs: 0, members: ['a', 'b'] }),
      row({ tMs: 1000, members: ['c', 'd'] }),
      row({ tMs: 2000, last: 7 }),
    ];
    expect(combineStats('set', normalize('set', rows, 0)).count).toBe(4);
  });
});

describe('percentiles', () => {
  it('a summary that sent no quantiles has no percentiles', () => {
    const rows = [row({ tMs: 0, count: 2, sum: 4 })];
    const stats = combineStats('summary', normalize('summary', rows, 0));
    expect(stats).toMatchObject({ count: 2, sum: 4 });
    expect('percentiles' in stats).toBe(false);
  });

  it("a summary bucket's p99 is the 0.99 quantile, not a higher one sent after it", () => {
    const rows = [
      row({
        tMs: 0,
        count: 10,
        sum: 10,
        quantiles: [
          { q: 0.5, value: 1 },
          { q: 0.9, value: 2 },
          { q: 0.99, value: 3 },
          { q: 0.999, value: 4 },
        ],
      }),
    ];
    const [b] = bucketize('summary', normalize('summary', rows, 0), 0, 1000, 1);
    expect(b).toMatchObject({ p50: 1, p90: 2, p99: 3 });
  });

  it('a distribution bucket without values has no percentiles', () => {
    const noSketch = [row({ tMs: 0, count: 3, sum: 6 })];
    const [a] = bucketize('timer', normalize('timer', noSketch, 0), 0, 1000, 1, {
      percentiles: true,
    });
    expect(a).toMatchObject({ count: 3, value: 2 });
    expect(a?.p50).toBeUndefined();
    const empty = [row({ tMs: 0, count: 0, sum: 0, sketch: raw([]) })];
    const [b] = bucketize('timer', normalize('timer', empty, 0), 0, 1000, 1, {
      percentiles: true,
    });
    expect([b?.p50, b?.p90, b?.p99]).toEqual([undefined, undefined, undefined]);
  });
});
