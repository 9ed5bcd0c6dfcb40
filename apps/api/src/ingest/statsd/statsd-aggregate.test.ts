import { describe, expect, it } from 'vitest';
import {
  decodeDistribution,
  distributionCount,
  percentileOf,
  RAW_SAMPLE_LIMIT,
} from '../../domain/distribution.ts';
import { StatsdAggregator } from './statsd-aggregate.ts';
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
