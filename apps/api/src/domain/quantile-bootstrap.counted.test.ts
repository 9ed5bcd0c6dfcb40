// The bootstrap of a counted sample (a histogram's values and counts), as the load gate reads
// HdrHistograms: the same distribution as the sample written out, from its cumulative counts.
import { describe, expect, it } from 'vitest';
import { prng } from '../demo/prng.ts';
import {
  type Atom,
  countedPercentileDifference,
  countsBootstrap,
  differenceQuantiles,
  percentileBootstrap,
  percentileDifference,
  quantileOf,
} from './quantile-bootstrap.ts';

const writtenOut = (values: number[], counts: number[]) =>
  values.flatMap((v, i) => Array.from({ length: counts[i] as number }, () => v));
// Within 1e-9: the mass each leaves out below its window (NEGLIGIBLE atoms) sums below that,
// and the two start their windows at a rank and at a bucket's first rank.
const same = (got: Atom[], want: Atom[], digits = 12) => {
  expect(got.map((a) => a.value)).toEqual(want.map((a) => a.value));
  for (const [i, a] of want.entries()) expect(got[i]?.p).toBeCloseTo(a.p, digits);
};

describe('countsBootstrap', () => {
  it('two values once each: the resampled minimum and maximum, worked by hand', () => {
    // Two draws from {1, 2}: the smaller is 2 only when both are (1/4); the larger is 1 only
    // when both are 1 (1/4).
    same(countsBootstrap([1, 2], [1, 1], 50), [
      { value: 1, p: 0.75 },
      { value: 2, p: 0.25 },
    ]);
    same(countsBootstrap([1, 2], [1, 1], 100), [
      { value: 1, p: 0.25 },
      { value: 2, p: 0.75 },
    ]);
  });
  it('skips empty buckets: the median of three draws from {1, 1, 9}', () => {
    // At most 1 when two or three of the draws are 1 (each 2/3): 3 (2/3)^2 (1/3) + (2/3)^3.
    same(countsBootstrap([1, 5, 9], [2, 0, 1], 50), [
      { value: 1, p: 20 / 27 },
      { value: 9, p: 7 / 27 },
    ]);
    expect(countsBootstrap([1, 2], [0, 0], 50)).toEqual([]);
    expect(countsBootstrap([], [], 99)).toEqual([]);
  });
  it('equals percentileBootstrap of the sample written out, far from the rank too', () => {
    const rnd = prng(5);
    for (let round = 0; round < 12; round++) {
      const buckets = 1 + Math.floor(rnd.next() * 300);
      const values = Array.from({ length: buckets }, (_, i) => i * 0.5 + 1);
      // Mostly small counts, some empty, some large (windows that start past bucket 0).
      const counts: number[] = values.map(() => {
        const u = rnd.next();
        return u < 0.2 ? 0 : u < 0.9 ? 1 + Math.floor(rnd.next() * 4) : 50;
      });
      if (!counts.some((c) => c > 0)) counts[0] = 1;
      for (const p of [1, 50, 90, 99, 100])
        same(
          countsBootstrap(values, counts, p),
          percentileBootstrap(writtenOut(values, counts), p),
          9,
        );
    }
  });
});

describe('countedPercentileDifference', () => {
  it('equals percentileDifference of the samples written out', () => {
    const rnd = prng(11);
    for (let round = 0; round < 8; round++) {
      const values = Array.from({ length: 40 }, (_, i) => 1 + i * 0.25);
      const counts = (skew: number) =>
        values.map((_, i) => Math.floor(rnd.next() * 5 + (i * skew) / 10));
      const a = counts(1);
      const b = counts(2);
      for (const [p, level] of [
        [50, 0.95],
        [99, 0.95],
        [90, 0.5],
      ] as const) {
        const got = countedPercentileDifference(
          { values, counts: a },
          { values, counts: b },
          p,
          level,
        );
        const want = percentileDifference(writtenOut(values, a), writtenOut(values, b), p, level);
        expect(got?.level).toBe(level);
        expect(got?.delta).toBeCloseTo(want?.delta as number, 9);
        expect(got?.low).toBeCloseTo(want?.low as number, 9);
        expect(got?.high).toBeCloseTo(want?.high as number, 9);
      }
    }
  });
  it('reads each side at its nearest rank, past empty buckets; rounds to 1e-9', () => {
    // Current: 0, 2, 1 at 8.127, 9, 10 ms -> P50 of 3 is rank 2: 9. Baseline: 7.887 (x3).
    const d = countedPercentileDifference(
      { values: [8.127, 9, 10], counts: [0, 2, 1] },
      { values: [7.887], counts: [3] },
      50,
    );
    expect(d?.delta).toBe(1.113);
    expect(d?.level).toBe(0.95);
    // 8.127 - 7.887 is 0.2400000000000011 in floating point: 0.24 once rounded.
    const r = countedPercentileDifference(
      { values: [8.127], counts: [1] },
      { values: [7.887], counts: [1] },
      99,
    );
    expect(r).toEqual({ delta: 0.24, low: 0.24, high: 0.24, level: 0.95 });
  });
  it('is null when either side counts nothing', () => {
    expect(
      countedPercentileDifference({ values: [1], counts: [0] }, { values: [1], counts: [1] }, 50),
    ).toBeNull();
    expect(
      countedPercentileDifference({ values: [1], counts: [1] }, { values: [], counts: [] }, 50),
    ).toBeNull();
    expect(percentileDifference([], [1], 50)).toBeNull();
    expect(percentileDifference([1], [], 50)).toBeNull();
    expect(percentileDifference([3], [1], 50)).toEqual({ delta: 2, low: 2, high: 2, level: 0.95 });
  });
});

describe('the bootstrap at the ends of the sample: no more than negligible mass left out', () => {
  // n distinct values 0 .. n - 1. The resampled maximum is at most x_j when all n draws are:
  // P(max <= x_j) = ((j + 1) / n)^n; the resampled minimum is at least x_j when all are:
  // P(min >= x_j) = ((n - j) / n)^n.
  const n = 1000;
  const sorted = Array.from({ length: n }, (_, i) => i);
  const closedForm = (atOrBelow: (j: number) => number) =>
    sorted
      .map((j) => ({ value: j, p: atOrBelow(j) - (j === 0 ? 0 : atOrBelow(j - 1)) }))
      .filter((a) => a.p > 1e-12);
  it('P100: the resampled maximum', () => {
    const want = closedForm((j) => ((j + 1) / n) ** n);
    const got = percentileBootstrap(sorted, 100);
    // Left out before: every rank below n - 11, about e^-11 = 1.7e-5 in all.
    expect(got.reduce((s, a) => s + a.p, 0)).toBeCloseTo(1, 10);
    expect(got.map((a) => a.value)).toEqual(want.map((a) => a.value));
    for (const [i, a] of want.entries()) expect(got[i]?.p).toBeCloseTo(a.p, 10);
    const counted = countsBootstrap(sorted, new Array(n).fill(1), 100);
    expect(counted.reduce((s, a) => s + a.p, 0)).toBeCloseTo(1, 10);
  });
  it('a rank-1 percentile (P0.1 of 1,000): the resampled minimum', () => {
    const want = closedForm((j) => 1 - ((n - j - 1) / n) ** n);
    const got = percentileBootstrap(sorted, 0.1);
    expect(got.reduce((s, a) => s + a.p, 0)).toBeCloseTo(1, 10);
    expect(got.map((a) => a.value)).toEqual(want.map((a) => a.value));
    for (const [i, a] of want.entries()) expect(got[i]?.p).toBeCloseTo(a.p, 10);
  });
});

describe('quantileOf and differenceQuantiles of distributions that do not sum to 1', () => {
  it('read each by its own total', () => {
    // Weights 1 and 3 of 4: P(<= 1) = 0.25.
    const d = [
      { value: 1, p: 1 },
      { value: 2, p: 3 },
    ];
    expect(quantileOf(d, 0.25)).toBe(1);
    expect(quantileOf(d, 0.5)).toBe(2);
    expect(quantileOf(d, 0.25 + 1e-9)).toBe(2);
    // a - b with b's weights 1 and 1 (total 2): -1 and 0 at one half each.
    const a = [{ value: 0, p: 1 }];
    const b = [
      { value: 0, p: 1 },
      { value: 1, p: 1 },
    ];
    expect(differenceQuantiles(a, b, [0.5, 0.75, 1])).toEqual([-1, 0, 0]);
    expect(differenceQuantiles(b, a, [0.25, 0.5, 0.75])).toEqual([0, 0, 1]);
  });
});
