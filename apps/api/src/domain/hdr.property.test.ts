// Generated histograms against the reference implementation (hdr-histogram-js 3.0.1, what
// HdrHistogram's JS port records and encodes) and the raw values recorded: the buckets decodeHdr
// reads, the nearest-rank percentile of the raw values in its bucket, stats by bucket, merges
// and rescaling, each recomputed from the values one at a time.
import fc from 'fast-check';
import { build, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import {
  addInto,
  bucketBounds,
  decodeHdr,
  emptyLike,
  encodeCounts,
  encodePlain,
  type HdrCounts,
  hdrAccuracy,
  hdrPercentiles,
  hdrStats,
  scaled,
  valueFromIndex,
} from './hdr.ts';

/** Cases per property: `n`, or fewer when a run sets fast-check's global count (Stryker does). */
const runs = (n: number) => Math.min(n, fc.readConfigureGlobal().numRuns ?? n);

/** The reference's bucket of a value (JsHistogram has these; the Histogram type does not say). */
interface Equivalents {
  lowestEquivalentValue(v: number): number;
  highestEquivalentValue(v: number): number;
}
const eq = (h: Histogram) => h as unknown as Equivalents;

interface Shape {
  digits: 1 | 2 | 3 | 4 | 5;
  lowest: number;
}
const shape = fc.record({
  // 4 and 5 digits only make the arrays (and the test) larger: the layout code is the same.
  digits: fc.constantFrom(1 as const, 2 as const, 3 as const),
  // HdrHistogram rounds the lowest discernible value down to a power of two; give it one.
  lowest: fc.integer({ min: 0, max: 6 }).map((e) => 2 ** e),
});

/**
 * Values with counts: small, mid and large magnitudes (many buckets), repeats included. None
 * below the largest lowest discernible value generated (64), so no value is clamped.
 */
const recorded = fc.array(
  fc.record({
    v: fc.oneof(
      fc.integer({ min: 64, max: 3_000 }),
      fc.integer({ min: 64, max: 5_000_000 }),
      fc.integer({ min: 64, max: 2 ** 36 }),
    ),
    c: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 1_000 })),
  }),
  { minLength: 1, maxLength: 40 },
);

function reference(s: Shape, values: { v: number; c: number }[]): Histogram {
  const h = build({
    bitBucketSize: 64,
    numberOfSignificantValueDigits: s.digits,
    lowestDiscernibleValue: s.lowest,
    // Sized up front: hdr-histogram-js 3.0.1 auto-resized to a value just under a power of two
    // (1 digit, lowest 2, 2^36 - 1) encodes one count more than its own header allows, which
    // decodeHdr refuses as HdrHistogram's Java decoder would; that is not what is tested here.
    highestTrackableValue: 2 ** 37,
  });
  for (const { v, c } of values) h.recordValueWithCount(Math.max(v, s.lowest), c);
  return h;
}
const bytesOf = (h: Histogram) =>
  new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));

/** Every recorded value, expanded: counts are small enough to list. */
const expand = (values: { v: number; c: number }[], lowest: number) =>
  values
    .flatMap(({ v, c }) => Array.from({ length: c }, () => Math.max(v, lowest)))
    .sort((a, b) => a - b);

/** Counts without their trailing zeros (one encoding may fill further than another). */
const trimmed = (counts: Float64Array) => {
  let end = counts.length;
  while (end > 0 && counts[end - 1] === 0) end--;
  return Array.from(counts.subarray(0, end));
};

describe('decodeHdr against the reference', () => {
  it('reads each recorded value into the bucket the reference puts it in', () => {
    fc.assert(
      fc.property(shape, recorded, (s, values) => {
        const ref = reference(s, values);
        const h = decodeHdr(bytesOf(ref));
        expect(h.digits).toBe(s.digits);
        expect(h.lowest).toBe(s.lowest);
        expect(h.total).toBe(values.reduce((a, { c }) => a + c, 0));
        // Per bucket: the recorded count of the values whose reference bucket starts there.
        const want = new Map<number, number>();
        for (const { v, c } of values) {
          const low = eq(ref).lowestEquivalentValue(Math.max(v, s.lowest));
          want.set(low, (want.get(low) ?? 0) + c);
        }
        const got = new Map<number, number>();
        h.counts.forEach((c, i) => {
          if (c > 0) {
            const { low, high } = bucketBounds(h, i);
            expect(low).toBe(valueFromIndex(h, i));
            expect(high).toBe(eq(ref).highestEquivalentValue(low));
            got.set(low, c);
          }
        });
        expect(got).toEqual(want);
      }),
      { numRuns: runs(150) },
    );
  });

  it('the plain encoding decodes to the same counts', () => {
    fc.assert(
      fc.property(shape, recorded, (s, values) => {
        const h = decodeHdr(bytesOf(reference(s, values)));
        const back = decodeHdr(encodePlain(h));
        expect(back.total).toBe(h.total);
        expect(trimmed(back.counts)).toEqual(trimmed(h.counts));
        expect(back.digits).toBe(h.digits);
        expect(back.lowest).toBe(h.lowest);
      }),
      { numRuns: runs(100) },
    );
  });
});

describe('hdrPercentiles', () => {
  it('is the bucket of the raw value at the nearest rank, for each p in the order asked', () => {
    fc.assert(
      fc.property(
        shape,
        recorded,
        // p in thousandths of a percent (99.9 is 99,900), so the rank is counted in integers.
        fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 6 }),
        (s, values, milli) => {
          const ref = reference(s, values);
          const h = decodeHdr(bytesOf(ref));
          const raw = expand(values, s.lowest);
          const ps = milli.map((m) => m / 1000);
          const got = hdrPercentiles(h, ps);
          expect(got).toHaveLength(ps.length);
          milli.forEach((m, i) => {
            // The smallest rank k with k / n >= p / 100, in integers: ceil(m * n / 100,000).
            const k = Math.max(1, Math.floor((m * raw.length + 99_999) / 100_000));
            const at = raw[k - 1];
            const low = eq(ref).lowestEquivalentValue(at as number);
            const high = eq(ref).highestEquivalentValue(at as number);
            expect(got[i]).toEqual({ p: ps[i], value: high, low, high });
          });
        },
      ),
      { numRuns: runs(100) },
    );
  });

  it('an empty histogram has none', () => {
    expect(hdrPercentiles(emptyLike({ digits: 3, lowest: 1 }), [50])).toEqual([]);
  });

  it('reads ties and a rank on a bucket boundary (worked by hand)', () => {
    // 3 significant digits, lowest 1: values below 2048 have buckets of one.
    // 1 x 10, 3 x 20, 1 x 30: P20 rank 1 -> 10; P21 rank 2 -> 20; P80 rank 4 -> 20; P81 rank 5 -> 30.
    const h = decodeHdr(
      bytesOf(
        reference({ digits: 3, lowest: 1 }, [
          { v: 10, c: 1 },
          { v: 20, c: 3 },
          { v: 30, c: 1 },
        ]),
      ),
    );
    expect(hdrPercentiles(h, [81, 20, 80, 21]).map((q) => q.value)).toEqual([30, 10, 20, 20]);
  });
});

describe('hdrStats', () => {
  it('min and max are the outer bucket bounds; mean and deviation over bucket middles', () => {
    fc.assert(
      fc.property(shape, recorded, (s, values) => {
        const ref = reference(s, values);
        const h = decodeHdr(bytesOf(ref));
        const lows = values.map(({ v }) => eq(ref).lowestEquivalentValue(Math.max(v, s.lowest)));
        const highs = values.map(({ v }) => eq(ref).highestEquivalentValue(Math.max(v, s.lowest)));
        const st = hdrStats(h);
        expect(st.min).toBe(Math.min(...lows));
        expect(st.max).toBe(Math.max(...highs));
        let n = 0;
        let sum = 0;
        values.forEach(({ c }, i) => {
          n += c;
          sum += (((lows[i] as number) + (highs[i] as number)) / 2) * c;
        });
        const mean = sum / n;
        let sq = 0;
        values.forEach(({ c }, i) => {
          const mid = ((lows[i] as number) + (highs[i] as number)) / 2;
          sq += (mid - mean) ** 2 * c;
        });
        expect(st.mean).toBeCloseTo(mean, 6 - Math.ceil(Math.log10(Math.abs(mean) + 1)));
        const sd = Math.sqrt(sq / n);
        expect(Math.abs((st.stdDev as number) - sd)).toBeLessThanOrEqual(1e-6 * (mean + 1));
      }),
      { numRuns: runs(100) },
    );
  });

  it('an empty histogram has no stats', () => {
    expect(hdrStats(emptyLike({ digits: 2, lowest: 1 }))).toEqual({
      min: null,
      max: null,
      mean: null,
      stdDev: null,
    });
  });
});

describe('addInto', () => {
  it('same structure: the counts of one histogram of both value sets', () => {
    fc.assert(
      fc.property(shape, recorded, recorded, (s, a, b) => {
        const into = decodeHdr(bytesOf(reference(s, a)));
        const merged = addInto(into, decodeHdr(bytesOf(reference(s, b))));
        expect(merged).toBe(into);
        const both = decodeHdr(bytesOf(reference(s, [...a, ...b])));
        expect(merged.total).toBe(both.total);
        expect(trimmed(merged.counts)).toEqual(trimmed(both.counts));
      }),
      { numRuns: runs(100) },
    );
  });

  it('into an empty one of the same structure: a copy, whichever is longer', () => {
    fc.assert(
      fc.property(shape, recorded, (s, a) => {
        const from = decodeHdr(bytesOf(reference(s, a)));
        const into = addInto(emptyLike(s), from);
        expect(into.total).toBe(from.total);
        expect(Array.from(into.counts)).toEqual(Array.from(from.counts));
      }),
      { numRuns: runs(40) },
    );
  });

  it('different structures: each bucket of the second recorded at its lowest value into the first', () => {
    fc.assert(
      fc.property(shape, shape, recorded, recorded, (sa, sb, a, b) => {
        fc.pre(sa.digits !== sb.digits || sa.lowest !== sb.lowest);
        const refB = reference(sb, b);
        const into = decodeHdr(bytesOf(reference(sa, a)));
        addInto(into, decodeHdr(bytesOf(refB)));
        const want = decodeHdr(
          bytesOf(
            reference(sa, [
              ...a,
              ...b.map(({ v, c }) => ({
                v: eq(refB).lowestEquivalentValue(Math.max(v, sb.lowest)),
                c,
              })),
            ]),
          ),
        );
        expect(into.digits).toBe(sa.digits);
        expect(into.lowest).toBe(sa.lowest);
        expect(into.total).toBe(want.total);
        expect(trimmed(into.counts)).toEqual(trimmed(want.counts));
      }),
      { numRuns: runs(40) },
    );
  });
});

describe('scaled', () => {
  it('re-records each bucket middle times the factor; a factor of 1 is the histogram itself', () => {
    fc.assert(
      fc.property(
        shape,
        recorded.map((vs) => vs.map(({ v, c }) => ({ v: (v % 5_000_000) + 1, c }))),
        fc.constantFrom(1000, 1_000_000, 0.001),
        (s, values, factor) => {
          const src = reference(s, values);
          const h = decodeHdr(bytesOf(src));
          expect(scaled(h, 1)).toBe(h);
          const got = scaled(h, factor);
          const mids = values.map(({ v, c }) => {
            const x = Math.max(v, s.lowest);
            const mid = (eq(src).lowestEquivalentValue(x) + eq(src).highestEquivalentValue(x)) / 2;
            return { v: Math.round(mid * factor), c };
          });
          const want = build({ bitBucketSize: 64, numberOfSignificantValueDigits: s.digits });
          for (const { v, c } of mids) want.recordValueWithCount(v, c);
          const w = decodeHdr(bytesOf(want));
          expect(got.total).toBe(w.total);
          expect(got.digits).toBe(s.digits);
          expect(trimmed(got.counts)).toEqual(trimmed(w.counts));
        },
      ),
      { numRuns: runs(40) },
    );
  });
});

describe('encodeCounts', () => {
  it('encodes through the reference: decoded back, the same counts', () => {
    fc.assert(
      fc.property(shape, recorded, (s, values) => {
        const h = decodeHdr(bytesOf(reference(s, values)));
        const back = decodeHdr(encodeCounts(h));
        expect(back.total).toBe(h.total);
        expect(back.lowest).toBe(h.lowest);
        expect(trimmed(back.counts)).toEqual(trimmed(h.counts));
      }),
      { numRuns: runs(40) },
    );
  });
});

describe('hdrAccuracy', () => {
  it('bounds a percentile by its bucket, widened by the rounding, at 10^-digits', () => {
    const h: HdrCounts = { digits: 2, lowest: 1, counts: new Float64Array(), total: 0 };
    expect(hdrAccuracy(h, { p: 50, value: 2047, low: 2032, high: 2047 }, 1000, 0.5)).toEqual({
      exact: false,
      method: 'hdr',
      relativeError: 0.01,
      lower: 2.032 - 0.5,
      upper: 2.047 + 0.5,
    });
    expect(hdrAccuracy({ ...h, digits: 3 }, { p: 1, value: 9, low: 8, high: 9 }, 1)).toEqual({
      exact: false,
      method: 'hdr',
      relativeError: 0.001,
      lower: 8,
      upper: 9,
    });
  });
});
