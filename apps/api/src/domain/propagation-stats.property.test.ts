// Generated inputs against naive recomputations: a summary read from only the blocks its plan
// names equals the summary of the whole sample, and every figure equals what counting the
// sorted values one by one gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blocksNeeded,
  computeSummary,
  histogramEdges,
  planSummary,
  type SummaryRequest,
} from './propagation-stats.ts';
import { SortedLatencies, splitBlocks } from './sorted-latencies.ts';

/** Whole microseconds, skew (negative) included, many ties, and often exactly on a whole-ms bound. */
const latency = fc.oneof(
  fc.integer({ min: -5_000, max: 2_000_000 }),
  fc.integer({ min: -5, max: 2_500 }).map((wholeMs) => wholeMs * 1000),
);
const latencies = fc.array(latency, {
  minLength: 1,
  maxLength: 400,
});
const request = fc.record({
  percentiles: fc.uniqueArray(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 3 }),
  withinMs: fc.integer({ min: -10, max: 2_500 }),
  bins: fc.integer({ min: 1, max: 12 }),
  scale: fc.constantFrom('linear' as const, 'log' as const),
  // Few points (the curve needs few blocks, so a missing block shows) as well as many.
  cdfPoints: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 90 })),
});

/** The p-th percentile by the textbook rule, in integers: the smallest value with at least p % at or below it. */
function naivePercentile(sorted: number[], p: number): number {
  for (const v of sorted) {
    const atOrBelow = sorted.filter((x) => x <= v).length;
    if (atOrBelow * 100 >= p * sorted.length) return v;
  }
  throw new Error('unreachable');
}

function sortedOf(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

function partial(sorted: number[], blockSize: number, load: Iterable<number>): SortedLatencies {
  const all = splitBlocks(new Float64Array(sorted), blockSize);
  const firsts = new Float64Array(all.map((b) => b[0] as number));
  return new SortedLatencies(
    sorted.length,
    blockSize,
    firsts,
    new Map([...load].map((no) => [no, all[no] as Float64Array])),
  );
}

const inputOf = (sorted: number[], denominator: number) => ({
  n: sorted.length,
  minUs: sorted[0] as number,
  maxUs: sorted[sorted.length - 1] as number,
  denominator,
});

/** Cases per property: `n`, or fewer when a run sets fast-check's global count (Stryker does). */
const runs = (n: number) => fc.readConfigureGlobal().numRuns ?? n;

describe('a summary from the planned blocks only', () => {
  it('equals the summary with every block loaded, for any block size', () => {
    fc.assert(
      fc.property(
        latencies,
        request,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 50 }),
        fc.option(
          fc.tuple(fc.integer({ min: -6, max: 1_000 }), fc.integer({ min: 1, max: 2_500 })),
        ),
        fc.boolean(),
        (values, request: SummaryRequest, blockSize, missing, range, defaultPoints) => {
          const sorted = sortedOf(values);
          const input = inputOf(sorted, sorted.length + missing);
          // A histogram range as well as none, and the curve's default of 200 points.
          const ranged: SummaryRequest =
            range && range[0] < range[1]
              ? { ...request, fromMs: range[0], toMs: range[1] }
              : request;
          const { cdfPoints, ...rest } = ranged;
          const r: SummaryRequest = defaultPoints ? rest : ranged;
          // Every block loaded (the curve samples block starts, so the block size is the same).
          const whole = computeSummary(
            r,
            input,
            SortedLatencies.fromSorted(new Float64Array(sorted), blockSize),
          );
          const firsts = new Float64Array(
            splitBlocks(new Float64Array(sorted), blockSize).map((b) => b[0] as number),
          );
          const plan = planSummary(r, input, firsts, blockSize);
          const needed = blocksNeeded(plan, firsts, blockSize);
          // Ascending and without repeats: the loader reads them in one ordered pass.
          expect(needed).toEqual([...new Set(needed)].sort((a, b) => a - b));
          // Only blocks that exist: a bound below every value needs none.
          for (const no of needed) expect(no >= 0 && no < firsts.length).toBe(true);
          // A curve sampled at block starts (enough blocks) reads its values from `firsts`:
          // the plan then asks for the percentiles' ranks and the curve's last, rank n, only.
          if (firsts.length >= Math.min(r.cdfPoints ?? 200, 64))
            expect(plan.ranks.slice(r.percentiles.length)).toEqual([sorted.length]);
          else
            expect(new Set(plan.ranks.slice(r.percentiles.length))).toEqual(
              new Set(fewBlocksCurve(sorted.length, r.cdfPoints ?? 200)),
            );
          const fromPlan = computeSummary(r, input, partial(sorted, blockSize, needed));
          expect(fromPlan).toEqual(whole);
        },
      ),
      { numRuns: runs(1000) },
    );
  });

  it('loads the block that starts exactly at the within bound (values at or below it count)', () => {
    // Blocks of one: [0] [1000] [2000] [3000] us. "Within 1 ms" must read block 1, which
    // starts at the bound; neither the ranks nor the histogram's edges ask for it.
    const sorted = [0, 1000, 2000, 3000];
    const r: SummaryRequest = {
      percentiles: [1],
      withinMs: 1,
      bins: 1,
      scale: 'linear',
      cdfPoints: 1,
    };
    const input = inputOf(sorted, 4);
    const firsts = new Float64Array(sorted);
    const needed = blocksNeeded(planSummary(r, input, firsts, 1), firsts, 1);
    expect(needed).toContain(1);
    expect(computeSummary(r, input, partial(sorted, 1, needed)).withinCount).toBe(2);
  });

  it('loads the block of a percentile that nothing else needs', () => {
    // 1..100 us in blocks of 10. P55 is rank 55, inside block 5 (ranks 51-60); the within
    // bound is below every value and the one bin's edges are the first and last value.
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    const r: SummaryRequest = {
      percentiles: [55],
      withinMs: 0,
      bins: 1,
      scale: 'linear',
      cdfPoints: 1,
    };
    const input = inputOf(sorted, 100);
    const firsts = new Float64Array(sorted.filter((_, i) => i % 10 === 0));
    const needed = blocksNeeded(planSummary(r, input, firsts, 10), firsts, 10);
    expect(needed).toContain(5);
    expect(needed).not.toContain(-1);
    expect(computeSummary(r, input, partial(sorted, 10, needed)).percentiles[0]?.ms).toBe(0.055);
  });

  it('loads the block of the last curve point when a histogram range ends below the largest value', () => {
    // Blocks of 5: [0 0 0 0 0] [2000 2000]. One curve point is sampled at block starts (rank 1)
    // and ends at rank 7, inside block 1; the histogram's range ends at 1 ms, so no edge
    // reaches block 1, and neither does the within bound or P1. (Found by the property above.)
    const sorted = [0, 0, 0, 0, 0, 2000, 2000];
    const r: SummaryRequest = {
      percentiles: [1],
      withinMs: 0,
      bins: 1,
      scale: 'linear',
      cdfPoints: 1,
      fromMs: 0,
      toMs: 1,
    };
    const input = inputOf(sorted, 7);
    const firsts = new Float64Array([0, 2000]);
    const needed = blocksNeeded(planSummary(r, input, firsts, 5), firsts, 5);
    expect(needed).toEqual([0, 1]);
    expect(computeSummary(r, input, partial(sorted, 5, needed)).cdf.at(-1)).toEqual({
      ms: 2,
      fraction: 1,
    });
  });

  it('needs no block when there is nothing to summarise', () => {
    const plan = planSummary(
      { percentiles: [50], withinMs: 1, bins: 3, scale: 'linear' },
      { n: 0, minUs: null, maxUs: null, denominator: 4 },
      new Float64Array(),
      8,
    );
    expect(plan).toEqual({ ranks: [], bounds: [] });
  });
});

describe('every figure of a summary, recounted one value at a time', () => {
  it('percentiles, within, histogram, under/overflow and the curve', () => {
    fc.assert(
      fc.property(
        latencies,
        request,
        fc.integer({ min: 0, max: 50 }),
        fc.option(
          fc.tuple(fc.integer({ min: -6, max: 1_000 }), fc.integer({ min: 1, max: 2_500 })),
        ),
        (values, r: SummaryRequest, missing, range) => {
          const sorted = sortedOf(values);
          const denominator = sorted.length + missing;
          const req: SummaryRequest =
            range && range[0] < range[1] ? { ...r, fromMs: range[0], toMs: range[1] } : r;
          const s = computeSummary(
            req,
            inputOf(sorted, denominator),
            SortedLatencies.fromSorted(new Float64Array(sorted), 7),
          );
          expect(s.percentiles).toEqual(
            req.percentiles.map((p) => ({
              p,
              ms: naivePercentile(sorted, p) / 1000,
              exact: true,
              method: 'raw',
            })),
          );
          const within = sorted.filter((v) => v <= req.withinMs * 1000).length;
          expect(s.withinCount).toBe(within);
          expect(s.withinFraction).toBe(within / denominator);

          const from = req.fromMs !== undefined ? req.fromMs * 1000 : (sorted[0] as number);
          const to = req.toMs !== undefined ? req.toMs * 1000 : (sorted.at(-1) as number);
          const bins = s.histogram;
          // Bins tile [from, to] without gaps; each counts its half-open span, the last closed.
          expect(bins[0]?.fromMs).toBe(from / 1000);
          expect(bins.at(-1)?.toMs).toBe(to / 1000);
          bins.forEach((b, i) => {
            if (i > 0) expect(b.fromMs).toBe(bins[i - 1]?.toMs);
            const last = i === bins.length - 1;
            // In ms as the bins are given: v / 1000 is how the edges were divided too.
            const inBin = sorted
              .map((v) => v / 1000)
              .filter((v) => v >= b.fromMs && (last ? v <= b.toMs : v < b.toMs)).length;
            expect(b.count).toBe(inBin);
          });
          expect(s.underflow).toBe(sorted.filter((v) => v < from).length);
          expect(s.overflow).toBe(sorted.filter((v) => v > to).length);
          expect(s.underflow + s.overflow + bins.reduce((a, b) => a + b.count, 0)).toBe(
            sorted.length,
          );

          // The curve: each point is a value of the sample with its rank over the denominator,
          // ascending, from the smallest value to the largest at n / denominator.
          expect(s.cdf[0]).toEqual({ ms: (sorted[0] as number) / 1000, fraction: 1 / denominator });
          expect(s.cdf.at(-1)).toEqual({
            ms: (sorted.at(-1) as number) / 1000,
            fraction: sorted.length / denominator,
          });
          for (const [i, point] of s.cdf.entries()) {
            const rank = Math.round(point.fraction * denominator);
            expect(point.ms).toBe((sorted[rank - 1] as number) / 1000);
            if (i > 0) expect(point.fraction).toBeGreaterThan(s.cdf[i - 1]?.fraction as number);
          }
          expect(s.cdf.length).toBeLessThanOrEqual((req.cdfPoints ?? 200) + 1);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('no fraction over a declared denominator of 0, even with values', () => {
    const sorted = [1000, 2000];
    const s = computeSummary(
      { percentiles: [50], withinMs: 5, bins: 1, scale: 'linear' },
      inputOf(sorted, 0),
      SortedLatencies.fromSorted(new Float64Array(sorted)),
    );
    expect(s.withinCount).toBe(2);
    expect(s.withinFraction).toBeNull();
  });

  it('an empty sample has no figures, and a fraction only over a declared denominator', () => {
    const empty = { n: 0, minUs: null, maxUs: null };
    const r: SummaryRequest = { percentiles: [50], withinMs: 1, bins: 3, scale: 'linear' };
    const none = SortedLatencies.fromSorted(new Float64Array());
    expect(computeSummary(r, { ...empty, denominator: 5 }, none).withinFraction).toBe(0);
    expect(computeSummary(r, { ...empty, denominator: 0 }, none)).toEqual({
      percentiles: [],
      withinCount: 0,
      withinFraction: null,
      histogram: [],
      underflow: 0,
      overflow: 0,
      cdf: [],
    });
  });
});

/** The curve over few blocks: rank 1, and ceil(k * n / points) for k = 1..points (in integers). */
function fewBlocksCurve(n: number, points: number): number[] {
  const ranks = new Set([1]);
  for (let k = 1; k <= points; k++) ranks.add(Math.floor((k * n + points - 1) / points));
  return [...ranks].sort((a, b) => a - b);
}

/** The curve's ranks, recovered from its fractions (denominator n). */
function curveRanks(sorted: number[], points: number | undefined, blockSize: number): number[] {
  const n = sorted.length;
  const s = computeSummary(
    { percentiles: [50], withinMs: 0, bins: 1, scale: 'linear', cdfPoints: points },
    inputOf(sorted, n),
    SortedLatencies.fromSorted(new Float64Array(sorted), blockSize),
  );
  return s.cdf.map((c) => {
    const rank = Math.round(c.fraction * n);
    expect(c.ms).toBe((sorted[rank - 1] as number) / 1000);
    return rank;
  });
}

describe('the convergence curve: which points it holds', () => {
  const sample = fc.array(latency, { minLength: 1, maxLength: 400 }).map(sortedOf);
  const points = fc.option(fc.integer({ min: 1, max: 90 }), { nil: undefined });

  it('few blocks: rank 1 and, for k = 1..points, the first rank with at least k / points of n', () => {
    fc.assert(
      fc.property(sample, points, fc.integer({ min: 1, max: 40 }), (sorted, p, blockSize) => {
        const n = sorted.length;
        const blocks = Math.ceil(n / blockSize);
        const want = p ?? 200;
        fc.pre(blocks < Math.min(want, 64));
        expect(curveRanks(sorted, p, blockSize)).toEqual(fewBlocksCurve(n, want));
      }),
      { numRuns: runs(300) },
    );
  });

  it('enough blocks: evenly spaced block starts from the first block, and the last value', () => {
    fc.assert(
      fc.property(sample, points, fc.integer({ min: 1, max: 12 }), (sorted, p, blockSize) => {
        const n = sorted.length;
        const blocks = Math.ceil(n / blockSize);
        const want = p ?? 200;
        fc.pre(blocks >= Math.min(want, 64));
        const ranks = curveRanks(sorted, p, blockSize);
        expect(ranks.at(-1)).toBe(n);
        const count = Math.min(want, blocks);
        let starts = ranks.filter((r) => (r - 1) % blockSize === 0).map((r) => (r - 1) / blockSize);
        // n may itself start the last block without that block being one of the samples.
        if (starts.length === count + 1) starts = starts.slice(0, -1);
        expect(starts).toHaveLength(count);
        expect(ranks.length - starts.length).toBeLessThanOrEqual(1);
        expect(starts[0]).toBe(0);
        // Gaps of blocks / count, rounded one way or the other.
        for (let i = 1; i < starts.length; i++) {
          const gap = (starts[i] as number) - (starts[i - 1] as number);
          expect([Math.floor(blocks / count), Math.ceil(blocks / count)]).toContain(gap);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it('switches to block starts at min(points, 64) blocks', () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => 10 * (i + 1));
    // 10 values in blocks of 2: 5 blocks. Five points: sampled (ranks 1, 3, 5, 7, 9 and 10);
    // six points: ceil(k * 10 / 6) = 2, 4, 5, 7, 9, 10, with rank 1.
    expect(curveRanks(values(10), 5, 2)).toEqual([1, 3, 5, 7, 9, 10]);
    expect(curveRanks(values(10), 6, 2)).toEqual([1, 2, 4, 5, 7, 9, 10]);
    // The default 200 points: 64 blocks of one sample each start, 63 do not.
    expect(curveRanks(values(64), undefined, 1)).toEqual(values(64).map((_, i) => i + 1));
    const r63 = curveRanks(values(126), undefined, 2);
    expect(r63.filter((r) => r % 2 === 0).length).toBeGreaterThan(0);
  });
});

describe('histogram edges', () => {
  const span = fc
    .tuple(fc.integer({ min: -5_000, max: 2_000_000 }), fc.integer({ min: 1, max: 2_000_000 }))
    .map(([a, d]) => [a, a + d] as const);

  it('linear: bins + 1 edges from min to max, equally spaced', () => {
    fc.assert(
      fc.property(span, fc.integer({ min: 1, max: 50 }), ([min, max], bins) => {
        const edges = histogramEdges(min, max, bins, 'linear');
        expect(edges).toHaveLength(bins + 1);
        expect(edges[0]).toBe(min);
        expect(edges.at(-1)).toBe(max);
        const width = (max - min) / bins;
        edges.forEach((e, i) => {
          if (i > 0 && i < bins) expect(e).toBeCloseTo(min + i * width, 6);
        });
      }),
    );
  });

  it('log over positive values: a constant ratio from min to max', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 2, max: 1_000 }),
        fc.integer({ min: 1, max: 30 }),
        (min, factor, bins) => {
          const max = min * factor;
          const edges = histogramEdges(min, max, bins, 'log');
          expect(edges).toHaveLength(bins + 1);
          expect(edges[0]).toBe(min);
          expect(edges.at(-1)).toBe(max);
          for (let i = 1; i + 1 < edges.length; i++)
            expect((edges[i + 1] as number) / (edges[i] as number)).toBeCloseTo(
              (edges[1] as number) / min,
              6,
            );
        },
      ),
    );
  });

  it('log over skewed values: one bin from the minimum, then log bins from the smallest positive', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5_000, max: 0 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 2, max: 1_000 }),
        fc.integer({ min: 2, max: 30 }),
        (min, start, factor, bins) => {
          const max = start * factor;
          const edges = histogramEdges(min, max, bins, 'log', start);
          expect(edges).toHaveLength(bins + 1);
          expect(edges.slice(0, 2)).toEqual([min, start]);
          expect(edges.at(-1)).toBe(max);
          const ratio = (edges[2] as number) / start;
          for (let i = 2; i + 1 < edges.length; i++)
            expect((edges[i + 1] as number) / (edges[i] as number)).toBeCloseTo(ratio, 6);
          // Without a known smallest positive value the log bins start at 1 us.
          expect(histogramEdges(min, max, bins, 'log')[1]).toBe(1);
        },
      ),
    );
  });

  it('log over values that are all <= 0 falls back to linear bins', () => {
    expect(histogramEdges(-400, -100, 3, 'log')).toEqual([-400, -300, -200, -100]);
    expect(histogramEdges(-300, 0, 3, 'log')).toEqual([-300, -200, -100, 0]);
  });

  it('linear: the last edge is the maximum itself, not min + bins x width', () => {
    // -5 + 7 x (29 / 7) is 24.000000000000004 in doubles.
    expect(-5 + 7 * (29 / 7)).not.toBe(24);
    expect(histogramEdges(-5, 24, 7, 'linear').at(-1)).toBe(24);
  });

  it('one value is one bin, whatever the scale', () => {
    expect(histogramEdges(5, 5, 8, 'log')).toEqual([5, 5]);
    expect(histogramEdges(5, 5, 8, 'linear')).toEqual([5, 5]);
  });
});
