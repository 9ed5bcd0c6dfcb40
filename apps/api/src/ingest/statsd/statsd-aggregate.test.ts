import { describe, expect, it } from 'vitest';
import {
  decodeDistribution,
  distributionCount,
  percentileOf,
  RAW_SAMPLE_LIMIT,
} from '../../domain/distribution.ts';
import { SET_MEMBER_LIMIT, StatsdAggregator } from './statsd-aggregate.ts';
import { StatsdReader } from './statsd-lines.ts';

function aggregate(text: string, flushMs = 1000) {
  const agg = new StatsdAggregator({ flushMs });
  new StatsdReader(agg).readText(text);
  return { agg, rows: agg.flush(10_000, 11_000) };
}

describe('StatsD aggregation per interval', () => {
  it('sums counters with the sample-rate correction', () => {
    const { rows } = aggregate('req:1|c|@0.1\nreq:2|c|@0.5\nreq:3|c\nreq:1|c|@0.1');
    // One row per line shape (rate included); reads add the rows of an interval up.
    expect(rows.map((r) => [r.count, r.sum])).toEqual([
      [2, 20],
      [1, 4],
      [1, 3],
    ]);
    expect(rows[0]).toMatchObject({ kind: 'counter', tMs: 10_000, intervalMs: 1000 });
  });

  it('refuses, as malformed, a value that would take a sum or a gauge past float64', () => {
    const { agg, rows } = aggregate(
      'big:1e308|c\nbig:1e308|c\nt:1e308|ms\nt:1e308|ms\ng:1e308|g\ng:+1e308|g\nok:1|c',
    );
    expect(rows.map((r) => [r.name, r.count, r.sum ?? r.last, r.samples])).toEqual([
      ['big', 1, 1e308, 1],
      ['t', 1, 1e308, 1],
      ['g', 1, 1e308, 1],
      ['ok', 1, 1, 1],
    ]);
    expect(agg.counters.malformed).toBe(3);
    expect(agg.counters.samples).toBe(4);
  });

  it('keeps the last gauge value with deltas applied, and its min and max', () => {
    const { rows } = aggregate('cpu:10|g\ncpu:+5|g\ncpu:-20|g\ncpu:+3|g');
    expect(rows[0]).toMatchObject({ kind: 'gauge', last: -2, min: -5, max: 15, count: 4 });
  });

  it('remembers a gauge across intervals for later deltas', () => {
    const agg = new StatsdAggregator({ flushMs: 1000 });
    const reader = new StatsdReader(agg);
    reader.readText('mem:100|g');
    agg.flush(0, 1000);
    reader.readText('mem:+25|g');
    expect(agg.flush(1000, 2000)[0]).toMatchObject({ last: 125 });
    // A delta for a gauge never seen starts from 0, as a fresh StatsD server does.
    reader.readText('other:-4|g');
    expect(agg.flush(2000, 3000)[0]).toMatchObject({ last: -4 });
  });

  it('counts distinct set members', () => {
    const { rows } = aggregate('u:a|s\nu:b|s\nu:a|s\nu:c|s');
    expect(rows[0]).toMatchObject({ kind: 'set', count: 4, last: 3 });
    expect(rows[0]?.members?.sort()).toEqual(['a', 'b', 'c']);
  });

  it('summarises sampled timers, histograms and distributions with a sketch', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    const { rows } = aggregate(values.map((v) => `lat:${v}|ms|@0.5`).join('\n'));
    const row = rows[0];
    expect(row).toMatchObject({ kind: 'timer', count: 200, sum: 2 * 5050, min: 1, max: 100 });
    const d = decodeDistribution(row?.sketch as Uint8Array);
    expect(d.form).toBe('ddsketch');
    expect(distributionCount(d)).toBe(200);
    // Each value counts twice: rank 100 of 200 is 50, rank 198 is 99.
    expect(Math.abs((percentileOf(d, 50)?.value as number) - 50) / 50).toBeLessThanOrEqual(0.01);
    expect(Math.abs((percentileOf(d, 99)?.value as number) - 99) / 99).toBeLessThanOrEqual(0.01);
    for (const [type, kind] of [
      ['h', 'histogram'],
      ['d', 'distribution'],
    ]) {
      expect(aggregate(`x:1|${type}`).rows[0]?.kind).toBe(kind);
    }
  });

  it(`keeps an interval's samples as they are up to ${RAW_SAMPLE_LIMIT}, a sketch past it`, () => {
    // 1..256 shuffled by a fixed stride (97 is prime to 256): every value once.
    const values = Array.from({ length: 256 }, (_, i) => ((i * 97) % 256) + 1);
    const kept = decodeDistribution(
      aggregate(values.map((v) => `lat:${v}|ms`).join('\n')).rows[0]?.sketch as Uint8Array,
    );
    expect(kept.form).toBe('raw');
    // Rank ceil(0.99 * 256) = 254 of 1..256 is 254; rank ceil(0.5 * 256) = 128 is 128.
    expect(percentileOf(kept, 99)).toEqual({ p: 99, value: 254, exact: true, method: 'raw' });
    expect(percentileOf(kept, 50)?.value).toBe(128);
    const over = decodeDistribution(
      aggregate([...values, 300].map((v) => `lat:${v}|ms`).join('\n')).rows[0]
        ?.sketch as Uint8Array,
    );
    expect(over.form).toBe('ddsketch');
    expect(distributionCount(over)).toBe(257);
  });

  it('keeps series apart by tags and type, and |T samples in their own interval', () => {
    const { rows } = aggregate(
      'a:1|c|#env:x\na:1|c|#env:y\na:1|g|#env:x\na:5|c|#env:x|T1770000000\na:2|c|#env:x|T1770000000',
    );
    expect(rows).toHaveLength(4);
    const stamped = rows.find((r) => r.tMs === 1_770_000_000_000);
    expect(stamped).toMatchObject({ sum: 7, intervalMs: 1000, tags: 'env:x' });
  });

  it('counts events, service checks and malformed lines', () => {
    const { agg } = aggregate('_e{1,1}:a|b\n_sc|x|0\nbad\na:1|q');
    expect(agg.counters).toMatchObject({ events: 1, serviceChecks: 1, malformed: 2, samples: 0 });
    expect(agg.counters.lastMalformed).toContain('unknown type "q"');
  });

  it('clears its state at every flush', () => {
    const agg = new StatsdAggregator({ flushMs: 1000 });
    const reader = new StatsdReader(agg);
    reader.readText('a:1|c');
    expect(agg.flush(0, 1000)).toHaveLength(1);
    expect(agg.flush(1000, 2000)).toHaveLength(0);
  });
});

describe('StatsD gauges beyond 2^53', () => {
  const exact = (text: string) =>
    aggregate(text).rows.map((r) => [r.name, r.lastExact] as [string, string | null]);

  it('keeps a whole number beyond 2^53 as written, and none within it', () => {
    expect(
      exact(
        [
          'a:18446744073709551615|g', // 2^64 - 1, as Envoy writes a uint64
          'b:9007199254740992|g', // 2^53: a float64 holds it
          'c:9007199254740993|g', // 2^53 + 1: it does not
          'd:-9007199254740995|g', // a negative one is a delta (statsd's metric_types.md) from 0
          'e:00018446744073709551615|g', // leading zeros dropped
          'f:1.8446744073709552e19|g', // an exponent: not a whole number as written
        ].join('\n'),
      ),
    ).toEqual([
      ['a', '18446744073709551615'],
      ['b', null],
      ['c', '9007199254740993'],
      ['d', '-9007199254740995'],
      ['e', '18446744073709551615'],
      ['f', null],
    ]);
  });

  it('adds deltas exactly, and forgets the exact value once the gauge is back within 2^53', () => {
    // 2^53 - 2 = 9007199254740990; + 5 = 9007199254740995; - 9007199254740000 = 995.
    expect(exact('g:9007199254740990|g\ng:+5|g')).toEqual([['g', '9007199254740995']]);
    expect(exact('h:18446744073709551615|g\nh:-18446744073709551000|g')).toEqual([['h', null]]);
    // A fractional delta: no exact value.
    expect(exact('i:9007199254740993|g\ni:+0.5|g')).toEqual([['i', null]]);
  });
});

// Expected values below are worked by hand from statsd/statsd stats.js @f7157b8 (counters add
// value / rate, timers count 1 / rate, a signed gauge value adds to the gauge, sets count
// distinct members) and from the aggregator's own contract (one row per shape and interval).
describe('StatsD rows, field by field', () => {
  it('a counter row holds its sum and nothing of the other kinds', () => {
    expect(aggregate('req:2|c\nreq:3|c').rows).toEqual([
      {
        tMs: 10_000,
        intervalMs: 1000,
        name: 'req',
        kind: 'counter',
        tags: '',
        containerId: '',
        samples: 2,
        count: 2,
        sum: 5,
        min: null,
        max: null,
        last: null,
        lastAtMs: null,
        sketch: null,
        members: null,
        lastExact: null,
      },
    ]);
  });

  it('a timer row holds count, sum, min, max, the last value and its samples', () => {
    const [row] = aggregate('t:3|ms\nt:1|ms\nt:2|ms').rows;
    expect(row).toMatchObject({
      kind: 'timer',
      samples: 3,
      count: 3,
      sum: 6,
      min: 1,
      max: 3,
      last: 2,
      lastAtMs: null,
      members: null,
      lastExact: null,
    });
    expect(decodeDistribution(row?.sketch as Uint8Array)).toMatchObject({
      form: 'raw',
      values: [3, 1, 2],
    });
  });

  it('a gauge row is stamped at the end of the interval it was read in', () => {
    const [row] = aggregate('g:4|g\ng:-1|g').rows;
    expect(row).toMatchObject({
      kind: 'gauge',
      count: 2,
      last: 3,
      min: 3,
      max: 4,
      sum: null,
      sketch: null,
      lastAtMs: 11_000,
    });
  });

  it('a set row holds its members and their number, no sum', () => {
    const [row] = aggregate('u:x|s\nu:y|s').rows;
    expect(row).toMatchObject({ kind: 'set', samples: 2, count: 2, last: 2, sum: null, min: null });
    expect(row?.members).toEqual(['x', 'y']);
  });
});

describe('StatsD intervals', () => {
  it('an interval read now spans [start, now); a clock that went back gives it no length', () => {
    const agg = new StatsdAggregator({ flushMs: 1000 });
    const reader = new StatsdReader(agg);
    reader.readText('a:1|c');
    expect(agg.flush(10_000, 11_500)[0]).toMatchObject({ tMs: 10_000, intervalMs: 1500 });
    reader.readText('a:1|c');
    expect(agg.flush(11_500, 9_000)[0]).toMatchObject({ tMs: 11_500, intervalMs: 0 });
  });

  it('a |T sample lands in the flush interval holding its second, stamped with it', () => {
    // 1770000003 s = 1770000003000 ms; 10 s intervals start at multiples of 10000 ms.
    const { rows } = aggregate('a:5|c|T1770000003\ng:7|g|T1770000003', 10_000);
    expect(rows.map((r) => [r.kind, r.tMs, r.intervalMs, r.lastAtMs])).toEqual([
      ['counter', 1_770_000_000_000, 10_000, null],
      ['gauge', 1_770_000_000_000, 10_000, 1_770_000_003_000],
    ]);
  });

  it('a series first seen after a flush opens its own aggregate', () => {
    const agg = new StatsdAggregator({ flushMs: 1000 });
    const reader = new StatsdReader(agg);
    reader.readText('a:1|c');
    agg.flush(0, 1000);
    reader.readText('b:2|c\nu:x|s');
    expect(agg.flush(1000, 2000).map((r) => [r.name, r.count])).toEqual([
      ['b', 1],
      ['u', 1],
    ]);
    expect(agg.counters.samples).toBe(3);
  });

  it('hands out a closed interval in slices', () => {
    const agg = new StatsdAggregator({ flushMs: 1000 });
    new StatsdReader(agg).readText('a:1|c\nb:1|c\nc:1|c\nd:1|c');
    expect(agg.pendingSeries).toBe(4);
    const closed = agg.close(0, 1000);
    expect(agg.pendingSeries).toBe(0);
    expect(agg.rows(closed, 1, 3).map((r) => r.name)).toEqual(['b', 'c']);
  });
});

describe('StatsD memory bounds', () => {
  it('drops the samples of series past maxSeries in an interval, and counts them', () => {
    const agg = new StatsdAggregator({ flushMs: 1000, maxSeries: 2 });
    new StatsdReader(agg).readText('a:1|c\nb:1|c\nc:1|c\na:2|c\nu:x|s');
    expect(agg.counters).toMatchObject({ dropped: 2, samples: 3 });
    expect(agg.flush(0, 1000).map((r) => [r.name, r.sum])).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
  });

  it('remembers maxGauges gauges; one more and all are forgotten', () => {
    const two = new StatsdAggregator({ flushMs: 1000, maxGauges: 2 });
    const r2 = new StatsdReader(two);
    r2.readText('a:5|g\nb:3|g');
    two.flush(0, 1000);
    r2.readText('a:+1|g\nb:+1|g');
    expect(two.flush(1000, 2000).map((r) => r.last)).toEqual([6, 4]);

    const one = new StatsdAggregator({ flushMs: 1000, maxGauges: 1 });
    const r1 = new StatsdReader(one);
    // b clears the memory of a; then a clears that of b.
    r1.readText('a:5|g\nb:3|g');
    one.flush(0, 1000);
    r1.readText('b:+1|g\na:+1|g');
    expect(one.flush(1000, 2000).map((r) => [r.name, r.last])).toEqual([
      ['b', 4],
      ['a', 1],
    ]);
  });

  it('only gauges take a place among the remembered ones', () => {
    const agg = new StatsdAggregator({ flushMs: 1000, maxGauges: 1 });
    const reader = new StatsdReader(agg);
    reader.readText('a:5|g');
    agg.flush(0, 1000);
    reader.readText('c:1|c\nt:1|ms\nu:x|s\na:+1|g');
    expect(agg.flush(1000, 2000).at(-1)).toMatchObject({ name: 'a', last: 6 });
  });

  it(`keeps ${SET_MEMBER_LIMIT} members of a set; past that only counts`, () => {
    const lines = Array.from({ length: SET_MEMBER_LIMIT + 1 }, (_, i) => `u:m${i}|s`);
    const [row] = aggregate(lines.join('\n')).rows;
    expect(row).toMatchObject({ count: SET_MEMBER_LIMIT + 1, last: SET_MEMBER_LIMIT });
    expect(row?.members).toHaveLength(SET_MEMBER_LIMIT);
  });
});

describe('StatsD timers turning into a sketch', () => {
  it('a sampled shape is a sketch from its first value, each value counting 1 / rate', () => {
    // The rate is part of the shape: @0.5 lines form their own row. 10 and 20 count twice.
    const { rows } = aggregate('lat:10|ms|@0.5\nlat:20|ms|@0.5\nlat:5|ms');
    expect(rows.map((r) => [r.count, r.sum, r.min, r.max, r.last])).toEqual([
      [4, 60, 10, 20, 20],
      [1, 5, 5, 5, 5],
    ]);
    const d = decodeDistribution(rows[0]?.sketch as Uint8Array);
    expect(d.form).toBe('ddsketch');
    expect(distributionCount(d)).toBe(4);
    // Ranks 1-2 are 10, 3-4 are 20: p50 is rank 2, p75 rank 3 (DDSketch: 1 % accuracy).
    expect(Math.abs((percentileOf(d, 50)?.value as number) - 10) / 10).toBeLessThanOrEqual(0.01);
    expect(Math.abs((percentileOf(d, 75)?.value as number) - 20) / 20).toBeLessThanOrEqual(0.01);
    expect(decodeDistribution(rows[1]?.sketch as Uint8Array).form).toBe('raw');
  });

  it('past the raw limit every later value goes into the sketch', () => {
    const values = Array.from({ length: RAW_SAMPLE_LIMIT + 3 }, (_, i) => i + 1);
    const [row] = aggregate(values.map((v) => `lat:${v}|ms`).join('\n')).rows;
    const d = decodeDistribution(row?.sketch as Uint8Array);
    expect(distributionCount(d)).toBe(RAW_SAMPLE_LIMIT + 3);
    expect(row).toMatchObject({ count: RAW_SAMPLE_LIMIT + 3, max: RAW_SAMPLE_LIMIT + 3 });
  });
});

describe('StatsD malformed lines, as counted', () => {
  it('names the series and value a sum past float64 refused', () => {
    const { agg } = aggregate('big:1e308|c\nbig:1e308|c');
    expect(agg.counters.lastMalformed).toBe("the series' sum would leave float64: big:1e+308|c");
  });

  it('keeps the first 200 characters of a malformed line', () => {
    const agg = new StatsdAggregator({ flushMs: 1000 });
    agg.malformed('x'.repeat(200), 'why');
    expect(agg.counters.lastMalformed).toBe(`why: ${'x'.repeat(200)}`);
    agg.malformed('y'.repeat(201), 'why');
    expect(agg.counters.lastMalformed).toBe(`why: ${'y'.repeat(200)}...`);
    expect(agg.counters.malformed).toBe(2);
  });
});

describe('StatsD gauges beyond 2^53: the edges', () => {
  const exact = (text: string) => aggregate(text).rows.map((r) => r.lastExact);

  it('-2^53 is held by a float64; -(2^53 + 1) is not', () => {
    expect(exact('n:-9007199254740992|g')).toEqual([null]);
    expect(exact('n:-9007199254740993|g')).toEqual(['-9007199254740993']);
  });

  it('adds a whole delta beyond 2^53 to an exact value: 2 x (2^64 - 1)', () => {
    expect(exact('h:18446744073709551615|g\nh:+18446744073709551615|g')).toEqual([
      '36893488147419103230',
    ]);
  });

  it('an absolute value replaces the gauge, it is not added', () => {
    expect(exact('a:5|g\na:9007199254740993|g')).toEqual(['9007199254740993']);
  });

  it('a delta beyond 2^53 on a fractional gauge has no exact value', () => {
    expect(exact('g:1.5|g\ng:+9007199254740993|g')).toEqual([null]);
  });
});
