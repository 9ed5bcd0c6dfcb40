// How one series' rows combine, for the parts series-math.test.ts leaves out: two aggregates of
// one interval made one (StatsD keeps one per line shape), each kind's class, a Summary's
// quantiles as sent, gauge histograms as snapshots, and buckets clamped to the axis. Expected
// values are worked from the rule each function's comment states.
import { describe, expect, it } from 'vitest';
import {
  decodeDistribution,
  distributionCount,
  encodeDistribution,
  percentilesOf,
} from './distribution.ts';
import {
  type AggregateValues,
  bucketize,
  bucketWidth,
  combineStats,
  lastSnapshot,
  mergeAggregate,
  type NormalRow,
  normalize,
  type StoredRow,
  summaryPercentiles,
  valueClass,
} from './series-math.ts';

const agg = (over: Partial<AggregateValues>): AggregateValues => ({
  count: 0,
  sum: null,
  min: null,
  max: null,
  last: null,
  lastAtMs: null,
  members: null,
  sketch: null,
  ...over,
});

const row = (over: Partial<StoredRow>): StoredRow => ({
  tMs: 0,
  intervalMs: 1000,
  startAtMs: null,
  ...agg({ count: 1 }),
  ...over,
});

const raw = (values: number[]) => encodeDistribution({ form: 'raw', values });

describe('valueClass', () => {
  it.each([
    ['counter', 'sum'],
    ['gauge', 'level'],
    ['updowncounter', 'level'],
    ['set', 'set'],
    ['timer', 'distribution'],
    ['histogram', 'distribution'],
    ['distribution', 'distribution'],
    ['summary', 'distribution'],
  ] as const)('%s combines as %s', (kind, cls) => {
    expect(valueClass(kind)).toBe(cls);
  });
});

describe('mergeAggregate', () => {
  it('a counter: counts and sums add, the lower min and the higher max, no level', () => {
    const into = agg({ count: 2, sum: 10, min: 4, max: 6 });
    mergeAggregate(
      'counter',
      into,
      agg({ count: 3, sum: 5, min: 1, max: 9, last: 8, lastAtMs: 5 }),
    );
    expect(into).toEqual(agg({ count: 5, sum: 15, min: 1, max: 9 }));
    // The other way round keeps into's extremes.
    const wide = agg({ count: 1, sum: 1, min: 1, max: 9 });
    mergeAggregate('counter', wide, agg({ count: 1, sum: 2, min: 4, max: 6 }));
    expect(wide).toEqual(agg({ count: 2, sum: 3, min: 1, max: 9 }));
  });

  it('takes a sum, min and max where into has none, and keeps its own where from has none', () => {
    const into = agg({ count: 1 });
    mergeAggregate('counter', into, agg({ count: 1, sum: 7, min: 7, max: 7 }));
    expect(into).toMatchObject({ sum: 7, min: 7, max: 7 });
    mergeAggregate('counter', into, agg({ count: 1 }));
    expect(into).toMatchObject({ count: 3, sum: 7, min: 7, max: 7 });
  });

  it('a gauge keeps the later value; at the same time, the one merged in', () => {
    const into = agg({ last: 1, lastAtMs: 100 });
    mergeAggregate('gauge', into, agg({ last: 2, lastAtMs: 50 }));
    expect(into).toMatchObject({ last: 1, lastAtMs: 100 });
    mergeAggregate('gauge', into, agg({ last: 3, lastAtMs: 100 }));
    expect(into).toMatchObject({ last: 3, lastAtMs: 100 });
    mergeAggregate('updowncounter', into, agg({ last: 4, lastAtMs: 150 }));
    expect(into).toMatchObject({ last: 4, lastAtMs: 150 });
    // A time of none counts as 0: a timed value is later.
    const untimed = agg({ last: 5 });
    mergeAggregate('gauge', untimed, agg({ last: 6, lastAtMs: 1 }));
    expect(untimed).toMatchObject({ last: 6, lastAtMs: 1 });
  });

  it('a set unites members and its level is their number', () => {
    const into = agg({ count: 2, members: ['a', 'b'], last: 2 });
    mergeAggregate('set', into, agg({ count: 2, members: ['b', 'c'], last: 2 }));
    expect(into.members?.sort()).toEqual(['a', 'b', 'c']);
    expect(into.last).toBe(3);
    // From none: from's members.
    const empty = agg({});
    mergeAggregate('set', empty, agg({ count: 1, members: ['z'] }));
    expect(empty).toMatchObject({ members: ['z'], last: 1 });
  });

  it('distributions merge: into none takes from, both give all values', () => {
    const into = agg({ count: 2 });
    mergeAggregate('timer', into, agg({ count: 2, sketch: raw([1, 2]) }));
    expect(decodeDistribution(into.sketch as Uint8Array)).toEqual({ form: 'raw', values: [1, 2] });
    mergeAggregate('timer', into, agg({ count: 3, sketch: raw([3, 4, 5]) }));
    const merged = decodeDistribution(into.sketch as Uint8Array);
    expect(distributionCount(merged)).toBe(5);
    // Nearest rank of 1..5: P60 is the 3rd value.
    expect(percentilesOf(merged, [60])[0]?.value).toBe(3);
    // Without a sketch from, into's stays.
    const before = into.sketch;
    mergeAggregate('timer', into, agg({ count: 1 }));
    expect(into.sketch).toBe(before);
  });
});

describe('summaryPercentiles', () => {
  it('q in [0, 1] as p in %, in order, not exact, the non-finite left out', () => {
    expect(
      summaryPercentiles([
        { q: 0.99, value: 30 },
        { q: Number.NaN, value: 1 },
        { q: 0.5, value: 10 },
        { q: 0.9, value: Number.POSITIVE_INFINITY },
        { q: 0.9, value: 20 },
      ]),
    ).toEqual([
      { p: 50, value: 10, exact: false, method: 'summary' },
      { p: 90, value: 20, exact: false, method: 'summary' },
      { p: 99, value: 30, exact: false, method: 'summary' },
    ]);
  });
});

describe('summaries', () => {
  const rows = [
    row({ tMs: 0, count: 4, sum: 40, quantiles: [{ q: 0.5, value: 9 }] }),
    row({
      tMs: 1000,
      count: 6,
      sum: 30,
      quantiles: [
        { q: 0.5, value: 4 },
        { q: 0.9, value: 8 },
        { q: 0.99, value: 12 },
      ],
    }),
    // A later row without quantiles does not hide the last ones sent.
    row({ tMs: 2000, count: 0, sum: 0, quantiles: [] }),
  ];

  it('give the last quantiles sent, with count and sum over all rows', () => {
    const stats = combineStats('summary', normalize('summary', rows, 0));
    expect(stats).toMatchObject({ count: 10, sum: 70 });
    expect(stats.percentiles?.map((p) => [p.p, p.value])).toEqual([
      [50, 4],
      [90, 8],
      [99, 12],
    ]);
  });

  it('bucketed: the mean of the bucket and its last quantiles as p50, p90, p99', () => {
    const [b] = bucketize('summary', normalize('summary', rows, 0), 0, 3000, 1);
    expect(b).toMatchObject({ count: 10, value: 7, p50: 4, p90: 8, p99: 12 });
    expect(b?.quantiles).toHaveLength(3);
    // A bucket of no observations has no mean.
    const [empty] = bucketize('summary', normalize('summary', rows.slice(2), 0), 0, 3000, 1);
    expect(empty?.value).toBeNull();
  });
});

describe('gauge histograms: snapshots, never added', () => {
  const n = (over: Partial<NormalRow>): NormalRow => ({
    tMs: 0,
    value: 0,
    count: 0,
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

  it('lastSnapshot: the latest time, then the latest written, then the later given', () => {
    const a = n({ tMs: 1000, atMs: 1500, count: 1 });
    const b = n({ tMs: 2000, atMs: 2100, count: 2 });
    const c = n({ tMs: 2000, atMs: 2050, count: 3 });
    const d = n({ tMs: 2000, atMs: 2100, count: 4 });
    expect(lastSnapshot([a, b, c])).toEqual([b]);
    expect(lastSnapshot([c, b, a])).toEqual([b]);
    expect(lastSnapshot([b, d])).toEqual([d]);
    expect(lastSnapshot([])).toEqual([]);
  });

  it('stats and buckets are those of the last snapshot', () => {
    const rows = [
      row({ tMs: 0, count: 5, sum: 50, sketch: raw([10, 10, 10, 10, 10]) }),
      row({ tMs: 1000, count: 2, sum: 6, sketch: raw([2, 4]) }),
    ];
    const normal = normalize('gauge_histogram', rows, 0);
    expect(combineStats('gauge_histogram', normal, [100])).toMatchObject({
      count: 2,
      sum: 6,
      percentiles: [{ p: 100, value: 4 }],
    });
    const [b] = bucketize('gauge_histogram', normal, 0, 2000, 1);
    expect(b).toMatchObject({ count: 2, value: 3 });
  });
});

describe('bucketize', () => {
  it('puts rows before the origin in the first bucket and past the end in the last', () => {
    const rows = [-5000, 0, 1500, 2999, 3000, 9000].map((tMs) => row({ tMs, sum: 1 }));
    const buckets = bucketize('counter', normalize('counter', rows, -10_000), 0, 1000, 3);
    expect(buckets.map((b) => [b.offsetMs, b.value])).toEqual([
      [0, 2],
      [1000, 1],
      [2000, 3],
    ]);
    // An increase of 3 in a 1 s bucket: 3 a second.
    expect(buckets[2]?.ratePerSec).toBe(3);
  });

  it('gives the asked percentiles of a distribution bucket, and p50/p90/p99', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    const rows = [row({ tMs: 0, count: 100, sum: 5050, min: 1, max: 100, sketch: raw(values) })];
    const [b] = bucketize('timer', normalize('timer', rows, 0), 0, 1000, 1, {
      percentiles: true,
      asked: [25],
    });
    // Raw values 1..100: the nearest rank of p is p.
    expect(b).toMatchObject({ value: 50.5, p50: 50, p90: 90, p99: 99 });
    expect(b?.percentiles?.map((p) => [p.p, p.value])).toEqual([[25, 25]]);
    const [plain] = bucketize('timer', normalize('timer', rows, 0), 0, 1000, 1);
    expect(plain?.p50).toBeUndefined();
  });

  it('a set bucket without members takes the largest count sent', () => {
    const rows = [row({ tMs: 0, last: 4 }), row({ tMs: 0, last: 2 })];
    const [b] = bucketize('set', normalize('set', rows, 0), 0, 1000, 1);
    expect(b?.value).toBe(4);
  });
});

describe('bucketWidth', () => {
  it('never finer than the minimum, and 1, 2 or 5 x 10^k', () => {
    expect(bucketWidth(10_000, 1000)).toBe(1000);
    expect(bucketWidth(10_000, 1000, 10)).toBe(10);
    expect(bucketWidth(10_000, 1000, 1)).toBe(10);
    // 0 points counts as 1: the whole span in one bucket, rounded up to 20 s.
    expect(bucketWidth(15_000, 0)).toBe(20_000);
    // 30 s / 10 = 3 s: rounded up to 5 s; 70 s / 10 = 7 s: to 10 s.
    expect(bucketWidth(30_000, 10)).toBe(5000);
    expect(bucketWidth(70_000, 10)).toBe(10_000);
  });
});

describe('normalize orders rows by time, then by when they were written', () => {
  it('gauge rows given out of order; a rate over a 2 s bucket', () => {
    const rows = [
      row({ tMs: 2000, last: 3, lastAtMs: 2500 }),
      row({ tMs: 0, last: 1, lastAtMs: 900 }),
      row({ tMs: 0, last: 2, lastAtMs: 400 }),
    ];
    expect(normalize('gauge', rows, 0).map((r) => r.value)).toEqual([2, 1, 3]);
    // The last level of the first 2 s is the one written last at t = 0.
    expect(bucketize('gauge', normalize('gauge', rows, 0), 0, 2000, 2)[0]?.value).toBe(1);
    const counter = [row({ tMs: 0, sum: 6 }), row({ tMs: 1000, sum: 2 })];
    const [b] = bucketize('counter', normalize('counter', counter, 0), 0, 2000, 1);
    // An increase of 8 over 2 s: 4 a second.
    expect(b?.ratePerSec).toBe(4);
  });

  it('a cumulative stream given out of order is differenced in time order', () => {
    const stream = [3000, 1000, 2000].map((tMs) => row({ tMs, startAtMs: 0, last: tMs / 100 }));
    // Totals 10, 20, 30 since the stream's start at 0 (in the run): 10 whole, then +10, +10.
    expect(normalize('counter', stream, 0).map((r) => [r.tMs, r.value])).toEqual([
      [1000, 10],
      [2000, 10],
      [3000, 10],
    ]);
  });
});
