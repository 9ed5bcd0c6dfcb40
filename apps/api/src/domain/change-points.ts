// Change points in a series of runs' numbers: E-Divisive means with a t-test as the
// significance test, split over sliding windows then merged, as Hunter (Fleming et al.,
// "Hunter: Using Change Point Detection to Hunt for Performance Regressions", ICPE 2023,
// doi:10.1145/3578244.3583719) introduced it and Apache Otava keeps it. Ported from
// apache/otava (otava/analysis.py: split, merge, TTestSignificanceTester;
// otava/change_point_divisive/{calculator,detector,base}.py), commit 1ceb153; the tests
// compare with the output of that code. Deterministic: no permutation test.

import { pooledTTestP, type SampleStats } from './student-t.ts';

export interface ChangePointOptions {
  /** The sliding window of the split step (Otava's `window_len`, default 50). */
  windowLen?: number;
  /** The largest p-value a change point may have (Otava's `max_pvalue`, default 0.001). */
  maxPValue?: number;
  /** The smallest relative change kept when the p-value alone would keep it (default 0). */
  minMagnitude?: number;
  /**
   * The fewest runs a segment between change points may hold (default 1: Otava's rule).
   * Not Otava's: with 1, a single spike makes two change points around it (apache/otava#150);
   * with 3, the merge step first drops the weaker point bounding any shorter segment.
   */
  minSegment?: number;
}

export interface ChangePoint {
  /** The index of the first value after the change. */
  index: number;
  /** E-Divisive's divergence of the two sides where the point was found. */
  qhat: number;
  pValue: number;
  meanBefore: number;
  meanAfter: number;
  stdBefore: number;
  stdAfter: number;
  /** meanAfter / meanBefore - 1 (0 when meanBefore is 0). */
  forwardChange: number;
  /** max(|after/before - 1|, |before/after - 1|), as Otava ranks changes. */
  magnitude: number;
}

interface Candidate {
  index: number;
  qhat: number;
}

/** [start, stop) of the series between change points. */
type Interval = [number, number];

function intervalsOf(points: readonly { index: number }[], length: number): Interval[] {
  const out: Interval[] = [];
  for (let i = 0; i <= points.length; i++) {
    const start = i === 0 ? 0 : (points[i - 1] as { index: number }).index;
    const stop = i === points.length ? length : (points[i] as { index: number }).index;
    if (start !== stop) out.push([start, stop]);
  }
  return out;
}

/**
 * The index τ in (start, end) and end κ in (τ, end] maximising
 *   Q = 2/(m+n) Σ|X_i - Y_j| - 2m/((m+n)(n-1)) Σ_{i<k}|X_i - X_k| - 2n/((m+n)(m-1)) Σ_{j<k}|Y_j - Y_k|
 * over X = z[start, τ), Y = z[τ, κ) (Otava's PairDistanceCalculator, power 1), first
 * maximum in (τ, κ) order. O(w²): running column sums of the distances.
 */
function bestCandidate(z: ArrayLike<number>, start: number, end: number): Candidate {
  const w = end - start;
  // below[k]: Σ_{j in [start, k)} |z_j - z_k|, the distances from k to everything before it.
  const below = new Float64Array(w);
  for (let k = 1; k < w; k++) {
    let s = 0;
    const zk = z[start + k] as number;
    for (let j = 0; j < k; j++) s += Math.abs((z[start + j] as number) - zk);
    below[k] = s;
  }
  // fromX[k]: Σ_{i in [start, τ)} |z_i - z_k|, kept as τ grows.
  const fromX = new Float64Array(w);
  let withinX = 0;
  let best: Candidate = { index: start + 1, qhat: Number.NEGATIVE_INFINITY };
  for (let t = 1; t < w; t++) {
    const zt = z[start + t - 1] as number;
    for (let k = t; k < w; k++)
      fromX[k] = (fromX[k] as number) + Math.abs(zt - (z[start + k] as number));
    withinX += below[t - 1] as number;
    const n = t;
    let cross = 0;
    let withinY = 0;
    for (let kappa = t + 1; kappa <= w; kappa++) {
      const k = kappa - 1;
      cross += fromX[k] as number;
      if (k > t) withinY += (below[k] as number) - (fromX[k] as number);
      const m = kappa - t;
      const sum = m + n;
      let q = (2 / sum) * cross;
      if (n > 1) q -= ((2 * m) / sum / (n - 1)) * withinX;
      if (m > 1) q -= ((2 * n) / sum / (m - 1)) * withinY;
      if (q > best.qhat) best = { index: start + t, qhat: q };
    }
  }
  return best;
}

function stats(values: ArrayLike<number>, from: number, to: number): SampleStats {
  const n = to - from;
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i] as number;
  const mean = sum / n;
  let ss = 0;
  for (let i = from; i < to; i++) ss += ((values[i] as number) - mean) ** 2;
  // numpy's np.std: the population deviation (Otava's choice, kept for the same p-values).
  return { mean, std: n >= 2 ? Math.sqrt(ss / n) : 0, n };
}

function relative(a: number, b: number): number {
  return a === 0 ? 0 : b / a - 1;
}

/** The t-test of the two sides of `index` within the intervals (split or merge step). */
function testAt(
  series: ArrayLike<number>,
  candidate: Candidate,
  intervals: Interval[],
): ChangePoint {
  let left: Interval | undefined;
  let right: Interval | undefined;
  for (let i = 0; i < intervals.length; i++) {
    const [start, stop] = intervals[i] as Interval;
    if (stop === candidate.index) {
      left = [start, stop];
      right = intervals[i + 1];
      break;
    }
    if (start < candidate.index && candidate.index < stop) {
      left = [start, candidate.index];
      right = [candidate.index, stop];
      break;
    }
  }
  if (!left || !right) throw new Error(`no interval holds change point ${candidate.index}`);
  const a = stats(series, left[0], left[1]);
  const b = stats(series, right[0], right[1]);
  const pValue = a.n + b.n > 2 ? pooledTTestP(a, b) : 1;
  const forwardChange = relative(a.mean, b.mean);
  return {
    index: candidate.index,
    qhat: candidate.qhat,
    pValue,
    meanBefore: a.mean,
    meanAfter: b.mean,
    stdBefore: a.std,
    stdAfter: b.std,
    forwardChange,
    magnitude: Math.max(Math.abs(forwardChange), Math.abs(relative(b.mean, a.mean))),
  };
}

/** E-Divisive over series[start, end) with the t-test (Otava's ChangePointDetector). */
function detect(series: ArrayLike<number>, start: number, end: number, maxPValue: number) {
  const window = Array.prototype.slice.call(series, start, end) as number[];
  const points: ChangePoint[] = [];
  for (;;) {
    const intervals = intervalsOf(points, window.length);
    let candidate: Candidate | undefined;
    for (const [from, to] of intervals) {
      if (to - from < 2) continue;
      const c = bestCandidate(window, from, to);
      if (!candidate || c.qhat > candidate.qhat) candidate = c;
    }
    if (!candidate) break;
    const point = testAt(window, candidate, intervals);
    if (point.pValue > maxPValue) break;
    points.push(point);
    points.sort((x, y) => x.index - y.index);
  }
  for (const p of points) p.index += start;
  return points;
}

/** The split step: weak change points from E-Divisive over overlapping windows. */
function split(series: ArrayLike<number>, windowLen: number, maxPValue: number): ChangePoint[] {
  if (windowLen < 2) throw new Error('window length must be at least 2');
  const step = Math.floor(windowLen / 2);
  const found: ChangePoint[] = [];
  let start = 0;
  while (start < series.length) {
    const end = Math.min(start + windowLen, series.length);
    const fresh = detect(series, start, end, maxPValue);
    const last = fresh.length > 0 ? (fresh[fresh.length - 1] as ChangePoint).index : 0;
    start = Math.max(last, start + step);
    for (const p of fresh) if (!found.some((f) => f.index === p.index)) found.push(p);
  }
  found.sort((a, b) => a.index - b.index);
  const intervals = intervalsOf(found, series.length);
  return found.map((p) => testAt(series, p, intervals));
}

/** The merge step: drops the weakest point until every one left is significant and large enough. */
function merge(
  points: ChangePoint[],
  series: ArrayLike<number>,
  maxPValue: number,
  minMagnitude: number,
  minSegment: number,
): ChangePoint[] {
  while (points.length > 0) {
    const short = boundingShortSegments(points, series.length, minSegment);
    let weakest = (short[0] ?? points[0]) as ChangePoint;
    for (const p of short.length > 0 ? short : points) if (p.pValue > weakest.pValue) weakest = p;
    if (short.length === 0 && weakest.pValue < maxPValue) {
      weakest = points[0] as ChangePoint;
      for (const p of points) if (p.magnitude < weakest.magnitude) weakest = p;
      if (weakest.magnitude > minMagnitude) return points;
    }
    const at = points.indexOf(weakest);
    points.splice(at, 1);
    const intervals = intervalsOf(points, series.length);
    // Otava recomputes the points now at `at` and `at + 1` (kept, so the answers agree with
    // it). The point before the removed one lost its right-hand segment too: when a short
    // segment is dropped it is recomputed as well, or its stale stats would keep a spike's
    // single run as a "segment" and its tiny p-value.
    for (const i of short.length > 0 ? [at - 1, at, at + 1] : [at, at + 1]) {
      if (i >= 0 && i < points.length)
        points[i] = testAt(series, points[i] as ChangePoint, intervals);
    }
  }
  return points;
}

/** The points at either end of a segment shorter than `minSegment` runs. */
function boundingShortSegments(
  points: ChangePoint[],
  length: number,
  minSegment: number,
): ChangePoint[] {
  if (minSegment <= 1) return [];
  const out = new Set<ChangePoint>();
  for (let i = 0; i <= points.length; i++) {
    const start = i === 0 ? 0 : (points[i - 1] as ChangePoint).index;
    const stop = i === points.length ? length : (points[i] as ChangePoint).index;
    if (stop - start >= minSegment) continue;
    if (i > 0) out.add(points[i - 1] as ChangePoint);
    if (i < points.length) out.add(points[i] as ChangePoint);
  }
  return points.filter((p) => out.has(p));
}

/**
 * The change points of a series (Otava's compute_change_points): the split step at a
 * relaxed p-value (10 times maxPValue below 0.05, twice below 0.5), then the merge step at
 * maxPValue and minMagnitude. Returns the change points and the weak ones they came from.
 */
export function changePoints(
  series: ArrayLike<number>,
  options: ChangePointOptions = {},
): { points: ChangePoint[]; weak: ChangePoint[] } {
  const windowLen = options.windowLen ?? 50;
  const maxPValue = options.maxPValue ?? 0.001;
  const minMagnitude = options.minMagnitude ?? 0;
  const minSegment = options.minSegment ?? 1;
  const firstPass = maxPValue < 0.05 ? maxPValue * 10 : maxPValue < 0.5 ? maxPValue * 2 : maxPValue;
  const weak = split(series, windowLen, firstPass);
  return { points: merge([...weak], series, maxPValue, minMagnitude, minSegment), weak };
}
