import { describe, expect, it } from 'vitest';
import { prng } from '../demo/prng.ts';
import {
  differenceOf,
  differenceQuantiles,
  percentileBootstrap,
  percentileDifference,
  quantileOf,
} from './quantile-bootstrap.ts';

// Under Stryker (scripts/stryker-setup.ts sets MESHBENCH_MUTATION_RUN) the seeded simulations
// run smaller, as fast-check's numRuns does there: every mutant that reaches
// percentileDifference runs them, and at full size they took most of a ~110 min run. The
// tolerances follow the size (3 standard errors; the A/A bound 12 % of the pairs), so the smaller
// run asks the same of the code, only with less power against a rule that is a little off.
const MUTATION_RUN = process.env.MESHBENCH_MUTATION_RUN === '1';

/** The nearest-rank percentile of an unsorted sample, the obvious way. */
const nearestRank = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(1, Math.ceil((p / 100) * s.length)) - 1] as number;
};

describe('percentileBootstrap', () => {
  it.each([50, 75, 99])('equals the enumeration of every resample of a tiny sample (P%i)', (p) => {
    const sample = [1, 2, 2, 5];
    const counts = new Map<number, number>();
    const n = sample.length;
    for (let code = 0; code < n ** n; code++) {
      const resample = Array.from(
        { length: n },
        (_, i) => sample[Math.floor(code / n ** i) % n] as number,
      );
      const q = nearestRank(resample, p);
      counts.set(q, (counts.get(q) ?? 0) + 1);
    }
    const want = [...counts].sort((a, b) => a[0] - b[0]).map(([value, c]) => [value, c / n ** n]);
    const got = percentileBootstrap(sample, p).map((a) => [a.value, a.p]);
    expect(got.map((g) => g[0])).toEqual(want.map((w) => w[0]));
    for (const [i, [, pr]] of want.entries()) expect(got[i]?.[1]).toBeCloseTo(pr as number, 12);
  });

  it('agrees with 10,000 random resamples of 300 values (2,000 under Stryker)', () => {
    const n = MUTATION_RUN ? 2_000 : 10_000;
    const rnd = prng(42);
    const sample = Array.from({ length: 300 }, () => rnd.logNormal(100, 0.5)).sort((a, b) => a - b);
    const exact = percentileBootstrap(sample, 96);
    const draws: number[] = [];
    for (let r = 0; r < n; r++) {
      const resample = Array.from(
        { length: 300 },
        () => sample[Math.floor(rnd.next() * 300)] as number,
      );
      draws.push(nearestRank(resample, 96));
    }
    // The exact CDF and the simulated one agree at every value, within sampling error
    // (the standard error of a share from n draws is at most 0.5 / sqrt(n): 0.005 for 10,000;
    // three of them).
    const tolerance = (3 * 0.5) / Math.sqrt(n);
    let cum = 0;
    for (const atom of exact) {
      cum += atom.p;
      const share = draws.filter((d) => d <= atom.value).length / draws.length;
      expect(Math.abs(share - cum)).toBeLessThan(tolerance);
    }
    expect(quantileOf(exact, 0.5)).toBeGreaterThan(0);
    expect(exact.reduce((s, a) => s + a.p, 0)).toBeCloseTo(1, 9);
  });

  it('handles 178,000 values and a sample of one', () => {
    const sorted = Array.from({ length: 178_000 }, (_, i) => i / 10);
    const d = percentileBootstrap(sorted, 99);
    expect(d.reduce((s, a) => s + a.p, 0)).toBeCloseTo(1, 9);
    const k = Math.ceil(0.99 * 178_000) - 1;
    // The mode sits at the sample's own P99.
    const mode = d.reduce((m, a) => (a.p > m.p ? a : m));
    expect(Math.abs(mode.value - (sorted[k] as number))).toBeLessThanOrEqual(0.2);
    expect(percentileBootstrap([7], 99)).toEqual([{ value: 7, p: 1 }]);
  });
});

describe('differenceQuantiles: the quantiles of a difference without the convolution', () => {
  it('equals the convolution read by quantileOf, on seeded samples with and without ties', () => {
    const rnd = prng(31);
    let cases = 0;
    const rounds = MUTATION_RUN ? 15 : 60;
    for (let round = 0; round < rounds; round++) {
      const n = 1 + Math.floor(rnd.next() * 400);
      const m = 1 + Math.floor(rnd.next() * 400);
      // Every third round on a coarse grid: many equal values, equal differences.
      const grid = round % 3 === 0 ? 1 : 1000;
      const draw = (k: number, scale: number) =>
        Array.from(
          { length: k },
          () => Math.round(rnd.logNormal(50, 0.8) * scale * grid) / grid,
        ).sort((x, y) => x - y);
      const a = draw(n, 1 + rnd.next());
      const b = draw(m, 1);
      for (const p of [50, 90, 99, 99.9]) {
        const da = percentileBootstrap(a, p);
        const db = percentileBootstrap(b, p);
        const qs = [0.025, 0.5, 0.975, 0.001, 0.999];
        const slow = qs.map((q) => quantileOf(differenceOf(da, db), q));
        expect(differenceQuantiles(da, db, qs)).toEqual(slow);
        cases++;
      }
    }
    expect(cases).toBe(rounds * 4);
  });
  it('reads a point mass and two atoms', () => {
    const one = [{ value: 5, p: 1 }];
    expect(differenceQuantiles(one, [{ value: 2, p: 1 }], [0.025, 0.975])).toEqual([3, 3]);
    const two = [
      { value: 10, p: 0.5 },
      { value: 12, p: 0.5 },
    ];
    expect(differenceQuantiles(two, [{ value: 1, p: 1 }], [0.25, 0.5, 0.51, 1])).toEqual([
      9, 9, 11, 11,
    ]);
  });
});

describe('percentileDifference', () => {
  it('differenceOf convolves', () => {
    const d = differenceOf(
      [
        { value: 10, p: 0.5 },
        { value: 12, p: 0.5 },
      ],
      [
        { value: 1, p: 0.5 },
        { value: 3, p: 0.5 },
      ],
    );
    expect(d).toEqual([
      { value: 7, p: 0.25 },
      { value: 9, p: 0.5 },
      { value: 11, p: 0.25 },
    ]);
  });

  it('excludes zero for a 20 % slower tail, includes it for two draws of one distribution', () => {
    const rnd = prng(7);
    const draw = (n: number, scale: number) =>
      Array.from({ length: n }, () => rnd.logNormal(200, 0.6) * scale).sort((a, b) => a - b);
    const base = draw(5000, 1);
    // P99 of 5,000 log-normal draws (sigma 0.6) has a standard error of about 26 ms at ~810
    // ms; 20 % slower is ~160 ms, beyond the interval of the difference (about +/- 70 ms).
    const slower = percentileDifference(draw(5000, 1.2), base, 99);
    expect(slower?.low).toBeGreaterThan(0);
    // A/A: 100 pairs of one distribution (25 under Stryker); a 95 % interval misses zero about
    // 5 times in 100.
    const pairs = MUTATION_RUN ? 25 : 100;
    let misses = 0;
    for (let i = 0; i < pairs; i++) {
      const r = percentileDifference(draw(2000, 1), draw(2000, 1), 99) as {
        low: number;
        high: number;
      };
      if (r.low > 0 || r.high < 0) misses++;
    }
    expect(misses).toBeLessThanOrEqual(Math.floor(pairs * 0.12));
  });
});
