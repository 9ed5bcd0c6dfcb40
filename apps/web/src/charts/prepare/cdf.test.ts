import { describe, expect, it } from 'vitest';
import { prepareCdf } from './cdf.ts';

// Four of the demo run's CDF points: one probe with a clock behind, the body, the long tail.
const cdf = [
  { ms: -12.197, fraction: 0.00005 },
  { ms: 17.162, fraction: 0.005 },
  { ms: 962.37, fraction: 0.95945 },
  { ms: 239644.333, fraction: 0.9994 },
];

const pairs = (points: { ms: number; percent: number }[]) => points.map((p) => [p.ms, p.percent]);

describe('prepareCdf', () => {
  it('draws a linear step from 0 % at the first latency to the final share at the axis end', () => {
    const c = prepareCdf(cdf, 'linear');
    expect(c?.domain).toEqual([-12.197, 250000]);
    const expected = [
      [-12.197, 0],
      [-12.197, 0.005],
      [17.162, 0.5],
      [962.37, 95.945],
      [239644.333, 99.94],
      [250000, 99.94],
    ];
    const got = pairs(c?.points ?? []);
    expect(got).toHaveLength(expected.length);
    got.forEach(([ms, percent], i) => {
      expect(ms).toBe(expected[i]?.[0]);
      expect(percent).toBeCloseTo(expected[i]?.[1] as number, 9);
    });
    // 250,012 / 6 = 41,669 -> a tick every 50 s, starting at 0.
    expect(c?.ticks).toEqual([0, 50_000, 100_000, 150_000, 200_000, 250_000]);
    expect(c?.percentTicks).toEqual([0, 20, 40, 60, 80, 100]);
    expect(c?.finalPercent).toBeCloseTo(99.94, 9);
    expect(c?.marker).toBeNull();
  });
  it('marks the 1 s threshold where it is clear of the axis ends', () => {
    // Log axis 10 ms - 250 s: 1 s sits at log(100) / log(25,000) = 45 % of its width.
    expect(prepareCdf(cdf, 'log', 1000)?.marker).toEqual({ ms: 1000, label: '1 s' });
    // Linear axis -12 ms - 250 s: 1 s sits at 1,012 / 250,012 = 0.4 %, against the y axis.
    expect(prepareCdf(cdf, 'linear', 1000)?.marker).toBeNull();
    // 100 s sits at 40 % of the linear axis.
    expect(prepareCdf(cdf, 'linear', 100_000)?.marker).toEqual({ ms: 100_000, label: '100 s' });
    // 300 s is past the end.
    expect(prepareCdf(cdf, 'linear', 300_000)?.marker).toBeNull();
  });
  it('on a log axis folds the applications before the change into its start', () => {
    const c = prepareCdf(cdf, 'log');
    expect(c?.domain).toEqual([10, 250000]);
    const expected = [
      [10, 0.005],
      [17.162, 0.5],
      [962.37, 95.945],
      [239644.333, 99.94],
      [250000, 99.94],
    ];
    const got = pairs(c?.points ?? []);
    expect(got).toHaveLength(expected.length);
    got.forEach(([ms, percent], i) => {
      expect(ms).toBe(expected[i]?.[0]);
      expect(percent).toBeCloseTo(expected[i]?.[1] as number, 9);
    });
    expect(c?.ticks).toEqual([10, 100, 1000, 10_000, 100_000]);
  });
  it('has nothing to draw without points', () => {
    expect(prepareCdf([], 'linear')).toBeNull();
    expect(prepareCdf([{ ms: -1, fraction: 1 }], 'log')).toBeNull();
  });
});
