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

  it('pooled two-sample t-test from stats', () => {
    close(
      pooledTTestP({ mean: 1, std: 0.1, n: 10 }, { mean: 1.2, std: 0.15, n: 12 }),
      0.0018061556615632025,
    );
    expect(pooledTTestP({ mean: 1, std: 0, n: 5 }, { mean: 2, std: 0, n: 5 })).toBe(0);
    expect(pooledTTestP({ mean: 1, std: 0, n: 5 }, { mean: 1, std: 0, n: 5 })).toBe(1);
  });
});
