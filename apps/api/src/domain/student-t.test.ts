import { describe, expect, it } from 'vitest';
import { incompleteBeta, pooledTTestP, twoSidedP } from './student-t.ts';

const close = (got: number, want: number) => expect(Math.abs(got / want - 1)).toBeLessThan(1e-9);

// Expected values from SciPy 1.10: 2 * scipy.stats.t.sf(|t|, df), scipy.special.betainc,
// scipy.stats.ttest_ind_from_stats.
describe('Student t', () => {
  it.each([
    [2.0, 10, 0.07338803477074037],
    [0.5, 3, 0.651447964848151],
    [5.0, 100, 2.450173413503802e-6],
    [30.0, 50, 1.2380022795987244e-33],
    [1e-3, 7, 0.9992300172449988],
    [-3.3, 1, 0.18731554186375868],
  ])('two-sided p of t=%f with %i degrees of freedom', (t, df, p) => {
    close(twoSidedP(t, df), p);
  });

  it('incomplete beta', () => {
    close(incompleteBeta(0.3, 2.5, 0.5), 0.018927124071945658);
    close(incompleteBeta(0.9, 10, 3), 0.889130022255);
    expect(incompleteBeta(0, 2, 3)).toBe(0);
    expect(incompleteBeta(1, 2, 3)).toBe(1);
  });

  // Closed forms of I_x(a, b): I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b, and
  // I_x(1/2, 1/2) = (2 / pi) asin(sqrt x). A shape below 1/2 takes ln Gamma's reflection.
  it('incomplete beta at shapes with closed forms, small shapes included', () => {
    close(incompleteBeta(0.3, 0.25, 1), 0.3 ** 0.25);
    close(incompleteBeta(0.2, 1, 0.25), 1 - 0.8 ** 0.25);
    close(incompleteBeta(0.7, 0.1, 1), 0.7 ** 0.1);
    close(incompleteBeta(0.25, 0.5, 0.5), 1 / 3);
  });

  it('incomplete beta outside [0, 1] is the nearest end, not NaN', () => {
    expect(incompleteBeta(-0.5, 2, 3)).toBe(0);
    expect(incompleteBeta(1.5, 2, 3)).toBe(1);
  });

  // Two degrees of freedom: P(|T| >= t) = 1 - t / sqrt(2 + t^2).
  it('two-sided p with 2 degrees of freedom, an infinite t and NaN', () => {
    close(twoSidedP(2, 2), 1 - 2 / Math.sqrt(6));
    close(twoSidedP(-0.5, 2), 1 - 0.5 / Math.sqrt(2.25));
    expect(twoSidedP(Number.POSITIVE_INFINITY, 5)).toBe(0);
    expect(twoSidedP(Number.NaN, 5)).toBeNaN();
  });

  it('pooled two-sample t-test from stats', () => {
    close(
      pooledTTestP({ mean: 1, std: 0.1, n: 10 }, { mean: 1.2, std: 0.15, n: 12 }),
      0.0018061556615632025,
    );
    expect(pooledTTestP({ mean: 1, std: 0, n: 5 }, { mean: 2, std: 0, n: 5 })).toBe(0);
    expect(pooledTTestP({ mean: 1, std: 0, n: 5 }, { mean: 1, std: 0, n: 5 })).toBe(1);
    // One value each: no degree of freedom, no evidence of a difference.
    expect(pooledTTestP({ mean: 1, std: 0, n: 1 }, { mean: 3, std: 0, n: 1 })).toBe(1);
  });
});
