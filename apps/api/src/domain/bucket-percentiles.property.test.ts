// Generated histograms against a recount: the bucket a percentile names is the one its
// nearest rank falls in, counting the buckets' values one by one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { percentileFromBuckets, withRequestedPercentiles } from './bucket-percentiles.ts';

/** Adjacent buckets from 0 ms, some empty, some a single value (from = to). */
const buckets = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 6 })), {
    minLength: 1,
    maxLength: 12,
  })
  .map((spec) => {
    let from = 0;
    return spec.map(([width, count]) => {
      const bin = { fromMs: from, toMs: from + width, count };
      from += width;
      return bin;
    });
  });
const percentile = fc.integer({ min: 1, max: 1000 }).map((tenths) => tenths / 10);

describe('percentileFromBuckets, recounted', () => {
  it('names the bucket holding the nearest-rank value, the rank placed evenly inside it', () => {
    fc.assert(
      fc.property(buckets, percentile, (bins, p) => {
        const total = bins.reduce((n, b) => n + b.count, 0);
        const got = percentileFromBuckets(bins, p);
        if (total === 0) {
          expect(got).toBeNull();
          return;
        }
        // Every value, as the index of its bucket, in order.
        const owners = bins.flatMap((b, i) => Array.from({ length: b.count }, () => i));
        const rank = Math.max(1, Math.ceil(Number(((p / 100) * total).toFixed(9))));
        const i = owners[rank - 1] as number;
        const bin = bins[i] as (typeof bins)[number];
        const before = owners.indexOf(i);
        expect(got).toEqual({
          p,
          ms: bin.fromMs + ((rank - before) / bin.count) * (bin.toMs - bin.fromMs),
          exact: bin.fromMs === bin.toMs,
          method: 'tool-histogram',
          lower: bin.fromMs,
          upper: bin.toMs,
        });
      }),
    );
  });
});

describe('withRequestedPercentiles', () => {
  it('adds each requested percentile the source lacks, once, all ascending by p', () => {
    fc.assert(
      fc.property(
        buckets.filter((bins) => bins.some((b) => b.count > 0)),
        fc.uniqueArray(percentile, { maxLength: 3 }),
        fc.array(percentile, { maxLength: 6 }),
        (bins, statedPs, requested) => {
          const stated = [...statedPs]
            .sort((a, b) => b - a)
            .map((p) => ({ p, ms: -1, exact: true, method: 'reported' as const }));
          const out = withRequestedPercentiles(stated, bins, requested);
          const missing = [...new Set(requested)].filter((p) => !statedPs.includes(p));
          const expected = [
            ...stated,
            ...missing.map((p) => percentileFromBuckets(bins, p) as NonNullable<unknown>),
          ];
          if (missing.length === 0) expect(out).toBe(stated);
          else
            expect(out).toEqual(
              [...expected].sort((a, b) => (a as { p: number }).p - (b as { p: number }).p),
            );
        },
      ),
    );
  });

  it('leaves the stated ones alone without a histogram or a request', () => {
    const stated = [{ p: 99, ms: 3, exact: true, method: 'reported' as const }];
    expect(withRequestedPercentiles(stated, [], [50])).toBe(stated);
    expect(withRequestedPercentiles(stated, [{ fromMs: 0, toMs: 1, count: 2 }], [])).toBe(stated);
  });
});
