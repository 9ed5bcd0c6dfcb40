import { describe, expect, it } from 'vitest';
import {
  type Distribution,
  decodeDistribution,
  downscale,
  type ExponentialDistribution,
  encodeDistribution,
  exponentialIndexRange,
  mergeDistributions,
  percentileOf,
  percentilesOf,
  subtractDistribution,
} from './distribution.ts';
import { encodeSketch, newSketch } from './sketch.ts';

// Expectations are worked out by hand or by the test's own bucketing (Math.log2 and a
// linear scan), never by the module under test.

/** Explicit buckets as OTLP defines them: bucket i holds (bounds[i-1], bounds[i]]. */
function explicitOf(bounds: number[], values: number[]): Distribution {
  const counts = new Array(bounds.length + 1).fill(0);
  for (const v of values) {
    let i = 0;
    while (i < bounds.length && v > (bounds[i] as number)) i++;
    counts[i]++;
  }
  return { form: 'explicit', bounds, counts };
}

/** Exponential buckets at `scale`: index = ceil(log2(|v|) * 2^scale) - 1. */
function exponentialOf(scale: number, values: number[]): ExponentialDistribution {
  const pos = new Map<number, number>();
  const neg = new Map<number, number>();
  let zeroCount = 0;
  for (const v of values) {
    if (v === 0) {
      zeroCount++;
      continue;
    }
    const i = Math.ceil(Math.log2(Math.abs(v)) * 2 ** scale) - 1;
    const m = v > 0 ? pos : neg;
    m.set(i, (m.get(i) ?? 0) + 1);
  }
  const side = (m: Map<number, number>) => {
    if (m.size === 0) return { offset: 0, bucketCounts: [] as number[] };
    const lo = Math.min(...m.keys());
    const hi = Math.max(...m.keys());
    return {
      offset: lo,
      bucketCounts: Array.from({ length: hi - lo + 1 }, (_, k) => m.get(lo + k) ?? 0),
    };
  };
  return {
    form: 'exponential',
    scale,
    zeroCount,
    zeroThreshold: 0,
    positive: side(pos),
    negative: side(neg),
  };
}

/** Nearest rank over the values themselves: sorted, the ceil(p/100 * n)-th. */
function trueRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(Math.round((p / 100) * sorted.length * 1e9) / 1e9));
  return sorted[rank - 1] as number;
}

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('raw values', () => {
  it('gives the nearest-rank value, marked exact', () => {
    // Sorted by hand: 1 2 3 4 5 6 7 8 9 10.
    const d: Distribution = { form: 'raw', values: [7, 1, 9, 3, 5, 2, 8, 4, 6, 10] };
    const got = percentilesOf(d, [10, 50, 90, 96, 99, 100]);
    expect(got.map((q) => q.value)).toEqual([1, 5, 9, 10, 10, 10]);
    expect(got.every((q) => q.exact && q.method === 'raw')).toBe(true);
  });

  it('concatenates on merge and removes the earlier values on subtract', () => {
    const a: Distribution = { form: 'raw', values: [3, 1] };
    const b: Distribution = { form: 'raw', values: [2, 2] };
    const m = mergeDistributions([a, b]);
    expect(m?.form === 'raw' && [...m.values].sort()).toEqual([1, 2, 2, 3]);
    const later: Distribution = { form: 'raw', values: [1, 2, 2, 3] };
    const d = subtractDistribution(later, { form: 'raw', values: [2, 1] });
    expect(d.form === 'raw' && d.values).toEqual([2, 3]);
  });
});

describe('DDSketch', () => {
  it('answers at the nearest rank: P99 of 40 samples is the largest, not the second', () => {
    const s = newSketch();
    for (let v = 1; v <= 40; v++) s.accept(v);
    const q = percentileOf({ form: 'ddsketch', sketch: s }, 99);
    // ceil(0.99 * 40) = 40: the 40th smallest of 1..40 is 40.
    expect(q?.relativeError).toBe(0.01);
    expect(Math.abs((q?.value as number) - 40) / 40).toBeLessThanOrEqual(0.01);
    const p50 = percentileOf({ form: 'ddsketch', sketch: s }, 50);
    // ceil(0.5 * 40) = 20.
    expect(Math.abs((p50?.value as number) - 20) / 20).toBeLessThanOrEqual(0.01);
  });

  it('orders negative values before zero and positive ones', () => {
    const s = newSketch();
    for (const v of [-50, -2, 0, 3, 100]) s.accept(v);
    const d: Distribution = { form: 'ddsketch', sketch: s };
    const v = (p: number) => percentileOf(d, p)?.value as number;
    expect(Math.abs(v(20) + 50)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(v(40) + 2)).toBeLessThanOrEqual(0.02);
    expect(v(60)).toBe(0);
    expect(Math.abs(v(80) - 3)).toBeLessThanOrEqual(0.03);
    expect(Math.abs(v(100) - 100)).toBeLessThanOrEqual(1);
  });
});

describe('explicit-bucket histograms', () => {
  // Recorded: 1 2 3 | 6 7 8 9 | 12 | 30 | 70 into (-inf,0] (0,5] (5,10] (10,25] (25,50] (50,inf).
  const values = [1, 2, 3, 6, 7, 8, 9, 12, 30, 70];
  const h = explicitOf([0, 5, 10, 25, 50], values);

  it('gives the bucket the rank falls in and interpolates inside it', () => {
    // Rank 5 of 10 is 7, the 2nd of 4 in (5, 10]: 5 + 5 * 2/4 = 7.5.
    expect(percentileOf(h, 50)).toEqual({
      p: 50,
      value: 7.5,
      exact: false,
      method: 'explicit-histogram',
      lower: 5,
      upper: 10,
    });
    // Rank 8 is 12, alone in (10, 25]: the bucket's top.
    expect(percentileOf(h, 80)).toMatchObject({ value: 25, lower: 10, upper: 25 });
  });

  it('leaves the open bucket unbounded unless min and max are known', () => {
    expect(percentileOf(h, 99)).toMatchObject({ value: 50, lower: 50, upper: null });
    expect(percentileOf(h, 99, { min: 1, max: 70 })).toMatchObject({
      value: 70,
      lower: 50,
      upper: 70,
    });
    expect(percentileOf(h, 10, { min: 1, max: 70 })).toMatchObject({ lower: 1, upper: 5 });
  });

  it('gives no value in a histogram without finite bounds unless something bounds it', () => {
    // One bucket (-inf, +inf) of 4 values: nothing says where any of them lies.
    const whole: Distribution = { form: 'explicit', bounds: [], counts: [4] };
    expect(percentileOf(whole, 50)).toBeNull();
    expect(percentilesOf(whole, [50, 99])).toEqual([]);
    // The run's own extremes: interpolated between them (rank 2 of 4: 1 + 8 * 2/4).
    expect(percentileOf(whole, 50, { min: 1, max: 9 })).toMatchObject({
      value: 5,
      lower: 1,
      upper: 9,
    });
    // A stream's bounds only: the side one gives, never interpolated toward.
    expect(percentileOf(whole, 50, { lowerBound: 2 })).toMatchObject({
      value: 2,
      lower: 2,
      upper: null,
    });
    expect(percentileOf(whole, 50, { upperBound: 8 })).toMatchObject({
      value: 8,
      lower: null,
      upper: 8,
    });
  });

  it('merges and subtracts bucket by bucket, on the common bounds when layouts differ', () => {
    const a = explicitOf([0, 5, 10], [1, 6, 7]);
    const b = explicitOf([0, 5, 10], [2, 20]);
    expect(mergeDistributions([a, b])).toEqual({
      form: 'explicit',
      bounds: [0, 5, 10],
      counts: [0, 2, 2, 1],
    });
    // Layouts [0,5,10] and [5,10,20] share 5 and 10: (-inf,5] (5,10] (10,inf).
    const c = explicitOf([5, 10, 20], [3, 8, 15, 30]);
    expect(mergeDistributions([a, c])).toEqual({
      form: 'explicit',
      bounds: [5, 10],
      counts: [2, 3, 2],
    });
    const later = explicitOf([0, 5, 10], [1, 2, 6, 7, 20]);
    expect(subtractDistribution(later, a)).toEqual({
      form: 'explicit',
      bounds: [0, 5, 10],
      counts: [0, 1, 0, 1],
    });
  });

  it('states a bound that holds the true nearest-rank value (seeded data)', () => {
    const rnd = prng(12);
    const bounds = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000];
    for (let round = 0; round < 50; round++) {
      const vs = Array.from({ length: 1 + Math.floor(rnd() * 300) }, () => rnd() ** 3 * 8000);
      const min = Math.min(...vs);
      const max = Math.max(...vs);
      const d = explicitOf(bounds, vs);
      for (const p of [1, 25, 50, 90, 96, 99, 99.9, 100]) {
        const q = percentileOf(d, p, { min, max });
        const truth = trueRank(vs, p);
        expect(q?.lower as number).toBeLessThanOrEqual(truth);
        expect(q?.upper as number).toBeGreaterThanOrEqual(truth);
        expect(q?.value as number).toBeGreaterThanOrEqual(q?.lower as number);
        expect(q?.value as number).toBeLessThanOrEqual(q?.upper as number);
      }
    }
  });
});

describe('exponential histograms', () => {
  it("gives the rank's bucket (base^i, base^(i+1)] with a value inside it", () => {
    // Scale 0, base 2: 0 -> zero bucket; 1.5 -> (1,2]; 3, 3.5 -> (2,4]; 5 -> (4,8].
    const d = exponentialOf(0, [3, 0, 5, 1.5, 3.5]);
    expect(d.positive).toEqual({ offset: 0, bucketCounts: [1, 2, 1] });
    // Rank 3 of 5 is 3.
    const q = percentileOf(d, 50);
    expect(q?.method).toBe('exponential-histogram');
    expect(q?.lower).toBeCloseTo(2, 10);
    expect(q?.upper).toBeCloseTo(4, 10);
    expect(q?.value).toBeCloseTo(Math.SQRT2 * 2, 10);
    expect(percentileOf(d, 20)).toMatchObject({ value: 0, lower: -0, upper: 0 });
    expect(percentileOf(d, 100, { max: 5 })).toMatchObject({ upper: 5 });
  });

  it('reads the top and bottom buckets a double maps to with finite bounds', () => {
    // Scale 0: Number.MAX_VALUE (2^1023 x 1.999...) is in bucket 1023, (2^1023, 2^1024];
    // 2^1024 is past float64, so the bucket's values are at most Number.MAX_VALUE.
    const top: ExponentialDistribution = {
      form: 'exponential',
      scale: 0,
      zeroCount: 0,
      zeroThreshold: 0,
      positive: { offset: 1023, bucketCounts: [1] },
      negative: { offset: 1023, bucketCounts: [1] },
    };
    const hi = percentileOf(top, 100);
    expect(hi?.lower).toBeLessThanOrEqual(2 ** 1023);
    expect(hi?.upper).toBe(Number.MAX_VALUE);
    expect(hi?.value).toBeGreaterThan(2 ** 1023);
    expect(hi?.value).toBeLessThanOrEqual(Number.MAX_VALUE);
    const lo = percentileOf(top, 50);
    expect(lo?.lower).toBe(-Number.MAX_VALUE);
    expect(lo?.value).toBeLessThan(-(2 ** 1023));
    // Mixed with another form, as a DDSketch: the top bucket's count is kept.
    const mixed = mergeDistributions([top, { form: 'raw', values: [1] }]);
    expect(percentileOf(mixed as Distribution, 100)?.value).toBeGreaterThan(2 ** 1020);
    // The bottom bucket a subnormal maps to: (2^-1023, 2^-1022].
    const bottom = percentileOf(
      {
        ...top,
        positive: { offset: -1023, bucketCounts: [1] },
        negative: { offset: 0, bucketCounts: [] },
      },
      100,
    );
    expect(bottom?.value).toBeGreaterThan(0);
    expect(Number.isFinite(bottom?.upper)).toBe(true);
  });

  it('puts negative values first, most negative first', () => {
    const d = exponentialOf(0, [-3, -1.5, 1.5]);
    const q = percentileOf(d, 1);
    // Rank 1 is -3, in -(2, 4].
    expect(q?.lower).toBeCloseTo(-4, 10);
    expect(q?.upper).toBeCloseTo(-2, 10);
  });

  it('downscales as the specification does: index i at scale s is i >> 1 at s - 1', () => {
    const values = [0.3, 0.7, 1.1, 1.9, 2.5, 3.3, 6, 9, 17, 40, 41, 300];
    expect(downscale(exponentialOf(3, values), 1)).toEqual(exponentialOf(1, values));
    expect(downscale(exponentialOf(2, values), -1)).toEqual(exponentialOf(-1, values));
  });

  it('merges points of different scales at the coarser one, exactly', () => {
    const a = [0.3, 1.1, 2.5, 6, 17];
    const b = [0.7, 1.9, 3.3, 9, 40, 300];
    const merged = mergeDistributions([exponentialOf(3, a), exponentialOf(1, b)]);
    expect(merged).toEqual(exponentialOf(1, [...a, ...b]));
  });

  it('subtracts a cumulative point from a later one (the delta between them)', () => {
    const first = [0.3, 1.1, 2.5];
    const then = [6, 17, 2.6];
    const later = exponentialOf(2, [...first, ...then]);
    const delta = subtractDistribution(later, exponentialOf(2, first));
    expect(delta).toEqual(exponentialOf(2, then));
  });

  it('states a bound that holds the true nearest-rank value (seeded data)', () => {
    const rnd = prng(7);
    for (let round = 0; round < 50; round++) {
      const scale = Math.floor(rnd() * 8) - 2;
      const vs = Array.from({ length: 1 + Math.floor(rnd() * 300) }, () =>
        rnd() < 0.05 ? 0 : (rnd() < 0.1 ? -1 : 1) * rnd() ** 2 * 5000,
      );
      const d = exponentialOf(scale, vs);
      for (const p of [1, 25, 50, 90, 96, 99, 99.9, 100]) {
        const q = percentileOf(d, p);
        const truth = trueRank(vs, p);
        expect(q?.lower as number).toBeLessThanOrEqual(truth);
        expect(q?.upper as number).toBeGreaterThanOrEqual(truth);
      }
    }
  });
});

describe('mixed forms', () => {
  it('makes raw values and sketches one sketch that keeps its bound', () => {
    const s = newSketch();
    s.accept(100);
    const m = mergeDistributions([
      { form: 'raw', values: [1, 2] },
      { form: 'ddsketch', sketch: s },
    ]);
    expect(m?.form).toBe('ddsketch');
    expect(percentileOf(m as Distribution, 100)?.relativeError).toBe(0.01);
  });

  it('claims no bound when bucket forms had to become a sketch', () => {
    const s = newSketch();
    s.accept(100);
    const m = mergeDistributions([explicitOf([10], [5]), { form: 'ddsketch', sketch: s }]);
    const q = percentileOf(m as Distribution, 50);
    expect(q).toMatchObject({ exact: false, method: 'ddsketch', lower: null, upper: null });
    expect(q?.relativeError).toBeUndefined();
  });
});

describe('stored bytes', () => {
  it('round-trips every form', () => {
    const s = newSketch();
    for (const v of [-4, 0, 1, 99]) s.accept(v);
    const forms: Distribution[] = [
      { form: 'raw', values: [1.5, -2, 1e300, 0] },
      explicitOf([0, 5, 10], [1, 6, 7, 70]),
      exponentialOf(-3, [-1000, 0, 5, 1e9]),
      exponentialOf(20, [1.0001, 1.0002]),
    ];
    for (const d of forms) expect(decodeDistribution(encodeDistribution(d))).toEqual(d);
    const back = decodeDistribution(encodeDistribution({ form: 'ddsketch', sketch: s }));
    expect(back.form === 'ddsketch' && back.sketch.count).toBe(4);
  });

  it('reads the DDSketch bytes stored before the form byte existed', () => {
    const s = newSketch();
    for (const v of [10, 20, 30]) s.accept(v);
    const old = decodeDistribution(encodeSketch(s));
    expect(old.form).toBe('ddsketch');
    expect(Math.abs((percentileOf(old, 100)?.value as number) - 30)).toBeLessThanOrEqual(0.3);
  });
});

describe('exponentialIndexRange: the bucket indexes a double maps to', () => {
  // OpenTelemetry's mappings: scale > 0, [MIN_NORMAL_EXPONENT << scale, ((MAX_NORMAL_EXPONENT
  // + 1) << scale) - 1], less one below for subnormals; scale <= 0, [MIN_NORMAL_EXPONENT >>
  // shift (less one when shift < 2), MAX_NORMAL_EXPONENT >> shift], exponents -1022 and 1023.
  it.each([
    [3, -1022 * 8 - 1, 1024 * 8 - 1],
    [1, -1022 * 2 - 1, 1024 * 2 - 1],
    [0, -1022 - 1, 1023],
    [-1, -511 - 1, 511],
    [-2, -256, 255],
    [-10, -1, 0],
  ])('at scale %i: %i to %i', (scale, lo, hi) => {
    expect(exponentialIndexRange(scale)).toEqual([lo, hi]);
  });
});

describe('exponential buckets combined and cut', () => {
  const expo = (
    scale: number,
    positive: [number, number[]],
    zeroCount = 0,
    zeroThreshold = 0,
  ): ExponentialDistribution => ({
    form: 'exponential',
    scale,
    zeroCount,
    zeroThreshold,
    positive: { offset: positive[0], bucketCounts: positive[1] },
    negative: { offset: 0, bucketCounts: [] },
  });

  it('downscales negative indexes by floor division, and refuses to upscale', () => {
    // Indexes -3, -2, -1, 0 at scale 1 are -2, -1, -1, 0 at scale 0.
    expect(downscale(expo(1, [-3, [1, 2, 3, 4]]), 0).positive).toEqual({
      offset: -2,
      bucketCounts: [1, 5, 4],
    });
    // Indexes 4, 5 at scale 2 are both 1 at scale 0.
    expect(downscale(expo(2, [4, [1, 2]]), 0).positive).toEqual({ offset: 1, bucketCounts: [3] });
    const same = expo(1, [2, [1, 2]]);
    const kept = downscale(same, 1);
    expect(kept.positive).toEqual({ offset: 2, bucketCounts: [1, 2] });
    expect(kept.positive.bucketCounts).not.toBe(same.positive.bucketCounts);
    expect(() => downscale(same, 2)).toThrow(
      new RangeError('cannot upscale an exponential histogram (1 -> 2)'),
    );
  });

  it('adds zero counts, keeps the wider zero threshold and an empty side', () => {
    const m = mergeDistributions([expo(0, [0, []], 4, 0.001), expo(0, [3, [2, 0, 1]], 1, 0.01)]);
    expect(m).toEqual(expo(0, [3, [2, 0, 1]], 5, 0.01));
    const n = mergeDistributions([expo(0, [3, [2]], 1, 0.01), expo(0, [0, []], 4, 0.001)]);
    expect(n).toEqual(expo(0, [3, [2]], 5, 0.01));
  });

  it('subtracts zero counts and buckets, cutting the zero buckets left at either end', () => {
    // (10, [5, 5, 5] at 1) - (3, [5, 0, 5] at 1): 7, [5] at 2.
    expect(subtractDistribution(expo(0, [1, [5, 5, 5]], 10), expo(0, [1, [5, 0, 5]], 3))).toEqual(
      expo(0, [2, [5]], 7),
    );
    // Everything gone: no bucket, and never a count below zero.
    expect(subtractDistribution(expo(0, [1, [5, 5]], 1), expo(0, [1, [6, 5]], 3))).toEqual(
      expo(0, [0, []], 0),
    );
    // Nothing later where there was something earlier: still nothing.
    expect(subtractDistribution(expo(0, [4, []], 2), expo(0, [1, [6]], 0))).toEqual(
      expo(0, [4, []], 2),
    );
    // A later bucket past the earlier ones: the end is the later one's.
    expect(subtractDistribution(expo(0, [1, [5, 0, 0, 4]]), expo(0, [1, [5]]))).toEqual(
      expo(0, [4, [4]]),
    );
  });
});

describe('explicit buckets on different layouts', () => {
  it('merges on the bounds common to every layout', () => {
    // [1, 2, 3], [1, 2, 4] and [1, 3, 5] share only 1: (-inf, 1] and (1, inf).
    const m = mergeDistributions([
      { form: 'explicit', bounds: [1, 2, 3], counts: [1, 1, 1, 1] },
      { form: 'explicit', bounds: [1, 2, 4], counts: [2, 2, 2, 2] },
      { form: 'explicit', bounds: [1, 3, 5], counts: [3, 3, 3, 3] },
    ]);
    expect(m).toEqual({ form: 'explicit', bounds: [1], counts: [6, 18] });
  });

  it('subtracts on the common bounds of layouts of one length', () => {
    // [1, 2, 3] and [1, 2, 4]: common [1, 2]; (2, 3] and (3, inf) make (2, inf).
    const d = subtractDistribution(
      { form: 'explicit', bounds: [1, 2, 3], counts: [5, 5, 5, 5] },
      { form: 'explicit', bounds: [1, 2, 4], counts: [1, 1, 1, 1] },
    );
    expect(d).toEqual({ form: 'explicit', bounds: [1, 2], counts: [4, 4, 8] });
  });
});

describe('merge and subtract across and within forms', () => {
  const raw = (values: number[]): Distribution => ({ form: 'raw', values });
  const sketchOf = (values: number[]): Distribution => {
    const s = newSketch();
    for (const v of values) s.accept(v);
    return { form: 'ddsketch', sketch: s };
  };
  const count = (d: Distribution | null) =>
    d?.form === 'ddsketch' ? d.sketch.count : d?.form === 'raw' ? d.values.length : -1;

  it('leaves out missing distributions, gives null for none and the one itself for one', () => {
    expect(mergeDistributions([])).toBeNull();
    expect(mergeDistributions([null, undefined])).toBeNull();
    const one = raw([1, 2]);
    expect(mergeDistributions([null, one, undefined])).toBe(one);
  });

  it('keeps up to 100,000 merged raw values raw, past that a sketch', () => {
    const half = raw(Array.from({ length: 50_000 }, (_, i) => i + 1));
    expect(mergeDistributions([half, half])?.form).toBe('raw');
    const past = mergeDistributions([half, raw([...(half as { values: number[] }).values, 7])]);
    expect(past?.form).toBe('ddsketch');
    expect(count(past)).toBe(100_001);
    expect((past as { unbounded?: boolean }).unbounded).toBeUndefined();
  });

  it('merges sketches into one sketch with their bound', () => {
    const m = mergeDistributions([sketchOf([1, 2, 3]), sketchOf([4, 5])]);
    expect(m?.form).toBe('ddsketch');
    expect(count(m)).toBe(5);
    expect((m as { unbounded?: boolean }).unbounded).toBeUndefined();
  });

  it('subtracts raw values as multisets, whatever their order', () => {
    // {1, 2, 2, 3, 5} less {2, 4}: one 2 goes, 4 was never there.
    expect(subtractDistribution(raw([3, 1, 2, 2, 5]), raw([4, 2]))).toEqual(raw([1, 2, 3, 5]));
    expect(subtractDistribution(raw([2, 1]), raw([1, 2, 9]))).toEqual(raw([]));
  });

  it('subtracts across forms as sketches, bounded only when both sides were', () => {
    const bounded = subtractDistribution(sketchOf([1, 2, 3, 4]), raw([1]));
    expect(bounded.form).toBe('ddsketch');
    expect((bounded as { unbounded?: boolean }).unbounded).toBeUndefined();
    expect(count(bounded)).toBe(3);
    const explicit: Distribution = { form: 'explicit', bounds: [10], counts: [3, 1] };
    for (const d of [
      subtractDistribution(explicit, sketchOf([1])),
      subtractDistribution(sketchOf([1, 2]), explicit),
      subtractDistribution(explicit, exponentialOf(0, [1])),
      subtractDistribution(exponentialOf(0, [1, 2]), explicit),
      subtractDistribution(raw([1, 2]), exponentialOf(0, [1])),
    ]) {
      expect(d).toMatchObject({ form: 'ddsketch', unbounded: true });
    }
  });
});

describe('percentiles within known ranges', () => {
  it('reads raw values unsorted', () => {
    expect(percentileOf({ form: 'raw', values: [3, 1, 2] }, 50)?.value).toBe(2);
    expect(percentileOf({ form: 'raw', values: [3, 1, 2] }, 100)?.value).toBe(3);
  });

  it('clamps a sketch value to the known min and max, and leaves one inside alone', () => {
    const s = newSketch();
    for (const v of [10, 20, 30]) s.accept(v);
    const d: Distribution = { form: 'ddsketch', sketch: s };
    expect(percentileOf(d, 1, { min: 15, max: 25 })?.value).toBe(15);
    expect(percentileOf(d, 100, { min: 15, max: 25 })?.value).toBe(25);
    const mid = percentileOf(d, 50, { min: 15, max: 25 })?.value as number;
    expect(Math.abs(mid / 20 - 1)).toBeLessThanOrEqual(0.01);
    expect(percentileOf(d, 50, { lowerBound: 5, upperBound: 35 })?.value).toBe(mid);
  });

  it('narrows an exponential bucket by a min inside it, not by one below it', () => {
    // Scale 0: 3 is in (2, 4].
    const d = exponentialOf(0, [3]);
    expect(percentileOf(d, 50, { min: 1 })?.lower).toBeCloseTo(2, 10);
    expect(percentileOf(d, 50, { min: 1 })?.lower).toBeLessThanOrEqual(2);
    expect(percentileOf(d, 50, { min: 3 })?.lower).toBe(3);
  });

  it('narrows an explicit bucket by bounds inside it, not by ones outside it', () => {
    // One value in (10, 20].
    const d: Distribution = { form: 'explicit', bounds: [10, 20], counts: [0, 1, 0] };
    expect(percentileOf(d, 50, { lowerBound: 5, upperBound: 25 })).toMatchObject({
      lower: 10,
      upper: 20,
    });
    expect(percentileOf(d, 50, { lowerBound: 12, upperBound: 18 })).toMatchObject({
      lower: 12,
      upper: 18,
    });
  });
});

describe('stored bytes of an unbounded sketch', () => {
  it('keeps it unbounded', () => {
    const s = newSketch();
    for (const v of [1, 2, 3]) s.accept(v);
    const back = decodeDistribution(
      encodeDistribution({ form: 'ddsketch', sketch: s, unbounded: true }),
    );
    expect(back).toMatchObject({ form: 'ddsketch', unbounded: true });
    expect((back as { sketch: { count: number } }).sketch.count).toBe(3);
    const bounded = decodeDistribution(encodeDistribution({ form: 'ddsketch', sketch: s }));
    expect((bounded as { unbounded?: boolean }).unbounded).toBeUndefined();
  });
});

describe('percentiles: bounds that are only bounds, and open buckets', () => {
  const sketch3 = (): Distribution => {
    const s = newSketch();
    for (const v of [10, 20, 30]) s.accept(v);
    return { form: 'ddsketch', sketch: s };
  };

  it('clamps a sketch value to lower and upper bounds when no extreme is known', () => {
    const d = sketch3();
    expect(percentileOf(d, 1, { lowerBound: 15, upperBound: 25 })?.value).toBe(15);
    expect(percentileOf(d, 100, { lowerBound: 15, upperBound: 25 })?.value).toBe(25);
    // The exact extremes win over bounds.
    expect(percentileOf(d, 1, { min: 15, lowerBound: 5 })?.value).toBe(15);
    expect(percentileOf(d, 100, { max: 25, upperBound: 35 })?.value).toBe(25);
    expect(percentileOf(d, 50)).toMatchObject({
      exact: false,
      method: 'ddsketch',
      relativeError: 0.01,
    });
  });

  it('has no percentile of nothing', () => {
    expect(percentileOf({ form: 'raw', values: [] }, 50)).toBeNull();
    expect(percentileOf({ form: 'explicit', bounds: [1], counts: [0, 0] }, 50)).toBeNull();
  });

  it('narrows an exponential bucket by a max inside it, not by one above it', () => {
    // Scale 0: 3 is in (2, 4].
    const d = exponentialOf(0, [3]);
    expect(percentileOf(d, 50, { max: 3.5 })).toMatchObject({ upper: 3.5, exact: false });
    const wide = percentileOf(d, 50, { max: 5 });
    expect(wide?.upper).toBeCloseTo(4, 10);
    expect(wide?.upper).toBeLessThan(4.001);
  });

  it('places a value of an open bucket at its closed side, its bounds saying how far', () => {
    // (-inf, 10]: 2 values; rank 1 of 2 is at 10, nothing below known.
    const first: Distribution = { form: 'explicit', bounds: [10, 20], counts: [2, 0, 0] };
    expect(percentileOf(first, 50)).toMatchObject({ value: 10, lower: null, upper: 10 });
    // A min below: the bucket is [min, 10], interpolated: rank 1 of 2 is half way.
    expect(percentileOf(first, 50, { min: -10 })).toMatchObject({
      value: 0,
      lower: -10,
      upper: 10,
    });
    // A lower bound below 0 only bounds: the value stays at 10.
    expect(percentileOf(first, 50, { lowerBound: -5 })).toMatchObject({
      value: 10,
      lower: -5,
      upper: 10,
    });
    // (20, inf): 2 values; rank 1 of 2 at 20; a max above makes it [20, max].
    const last: Distribution = { form: 'explicit', bounds: [10, 20], counts: [0, 0, 2] };
    expect(percentileOf(last, 50)).toMatchObject({ value: 20, lower: 20, upper: null });
    expect(percentileOf(last, 50, { max: 50 })).toMatchObject({ value: 35, lower: 20, upper: 50 });
    // A negative closed side with nothing below: -5, not null.
    const negative: Distribution = { form: 'explicit', bounds: [-5], counts: [1, 0] };
    expect(percentileOf(negative, 50)).toMatchObject({ value: -5, lower: null, upper: -5 });
  });

  it('moves an interpolated value inside bounds narrower than its bucket', () => {
    // (10, 20], 2 values: rank 1 of 2 interpolates to 15.
    const d: Distribution = { form: 'explicit', bounds: [10, 20], counts: [0, 2, 0] };
    expect(percentileOf(d, 50)?.value).toBe(15);
    expect(percentileOf(d, 50, { lowerBound: 17 })).toMatchObject({ value: 17, lower: 17 });
    expect(percentileOf(d, 50, { upperBound: 13 })).toMatchObject({ value: 13, upper: 13 });
  });
});
