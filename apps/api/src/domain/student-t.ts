// Student's t distribution: the two-sided p-value of a t statistic, and the two-sample
// t-test (pooled variance) that the change-point detection uses as its significance test.
// The incomplete beta function follows the continued fraction of Numerical Recipes (3rd ed.,
// 6.4, betacf with the modified Lentz method); the tests check it against SciPy's values.

const EPS = 1e-15;
const TINY = 1e-300;

/** ln Γ(x), x > 0 (Lanczos, g = 7, n = 9: about 15 significant digits). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(
    logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x),
  );
  // The fraction converges fast for x < (a + 1) / (a + b + 2); the symmetry covers the rest.
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(a, b, x)) / a;
  return 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(|T| >= |t|) for T with `df` degrees of freedom. */
export function twoSidedP(t: number, df: number): number {
  if (Number.isNaN(t)) return Number.NaN;
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

export interface SampleStats {
  mean: number;
  /** The standard deviation as given (Otava passes numpy's population deviation). */
  std: number;
  n: number;
}

/**
 * The two-sided p-value of the two-sample t-test with pooled variance, from each sample's
 * mean, deviation and size, as SciPy's `ttest_ind_from_stats(..., equal_var=True)` computes
 * it. Two constant samples: 1 when their means agree, else 0 (the t statistic is infinite).
 */
export function pooledTTestP(a: SampleStats, b: SampleStats): number {
  const df = a.n + b.n - 2;
  if (df <= 0) return 1;
  const pooled = ((a.n - 1) * a.std ** 2 + (b.n - 1) * b.std ** 2) / df;
  const denom = Math.sqrt(pooled * (1 / a.n + 1 / b.n));
  if (denom === 0) return a.mean === b.mean ? 1 : 0;
  return twoSidedP((a.mean - b.mean) / denom, df);
}
