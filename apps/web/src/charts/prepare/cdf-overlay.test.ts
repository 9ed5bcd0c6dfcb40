import { describe, expect, it } from 'vitest';
import { prepareCdfOverlay } from './cdf-overlay.ts';

// A: half the proxies by 10 ms, all by 100 ms. B: one probe 5 ms early, 80 % by 50 ms,
// 90 % by 700 ms and never more.
const a = [
  { ms: 10, fraction: 0.5 },
  { ms: 100, fraction: 1 },
];
const b = [
  { ms: -5, fraction: 0.1 },
  { ms: 50, fraction: 0.8 },
  { ms: 700, fraction: 0.9 },
];

describe('prepareCdfOverlay', () => {
  it('aligns the curves on one linear axis, each holding its share between its steps', () => {
    const o = prepareCdfOverlay(
      [
        { key: 'a', cdf: a },
        { key: 'b', cdf: b },
      ],
      'linear',
      100,
    );
    // A alone spans 0-100 ms; B spans -5 (its first latency) to 800 (700 rounded up).
    expect(o?.domain).toEqual([-5, 800]);
    expect(o?.rows).toEqual([
      { ms: -5, a: 0, b: 10 },
      { ms: 10, a: 50, b: 10 },
      { ms: 50, a: 50, b: 80 },
      { ms: 100, a: 100, b: 80 },
      { ms: 700, a: 100, b: 90 },
      { ms: 800, a: 100, b: 90 },
    ]);
    expect(o?.keys).toEqual(['a', 'b']);
    expect(o?.finalPercent).toEqual({ a: 100, b: 90 });
    // 805 / 6 = 134 -> a tick every 200 ms, from the first multiple at or above -5.
    expect(o?.ticks).toEqual([0, 200, 400, 600, 800]);
    // 100 ms sits at 105 / 805 = 13 % of the axis: clear of both ends.
    expect(o?.marker).toEqual({ ms: 100, label: '100 ms' });
  });
  it('on a log axis starts at the earliest decade and folds skewed probes into it', () => {
    const o = prepareCdfOverlay(
      [
        { key: 'a', cdf: a },
        { key: 'b', cdf: b },
      ],
      'log',
    );
    expect(o?.domain).toEqual([10, 800]);
    // B's probe before the change (10 %) is already there at the axis start.
    expect(o?.rows).toEqual([
      { ms: 10, a: 50, b: 10 },
      { ms: 50, a: 50, b: 80 },
      { ms: 100, a: 100, b: 80 },
      { ms: 700, a: 100, b: 90 },
      { ms: 800, a: 100, b: 90 },
    ]);
    // Two decades only: 2x and 5x ticks added.
    expect(o?.ticks).toEqual([10, 20, 50, 100, 200, 500]);
    expect(o?.marker).toBeNull();
  });
  it('leaves out a run with nothing to draw, and draws nothing when no run has anything', () => {
    const o = prepareCdfOverlay(
      [
        { key: 'a', cdf: a },
        { key: 'empty', cdf: [] },
      ],
      'linear',
    );
    expect(o?.keys).toEqual(['a']);
    expect(o?.rows[0]).toEqual({ ms: 0, a: 0 });
    expect(prepareCdfOverlay([{ key: 'empty', cdf: [] }], 'linear')).toBeNull();
  });
});
