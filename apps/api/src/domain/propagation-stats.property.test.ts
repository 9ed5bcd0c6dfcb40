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
        (values, r: SummaryRequest, blockSize, missing) => {
          const sorted = sortedOf(values);
          const input = inputOf(sorted, sorted.length + missing);
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

  it('one value is one bin, whatever the scale', () => {
    expect(histogramEdges(5, 5, 8, 'log')).toEqual([5, 5]);
    expect(histogramEdges(5, 5, 8, 'linear')).toEqual([5, 5]);
  });
});
