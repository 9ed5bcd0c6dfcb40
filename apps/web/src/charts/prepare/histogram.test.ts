import { describe, expect, it } from 'vitest';
import { histogramMarkers, linearHistogramRange, prepareHistogram } from './histogram.ts';

// The demo run's summary (Consul-like, 20,000 proxies): a body under 1 s and a tail of minutes.
const demoPercentiles = [
  { p: 50, ms: 71.451 },
  { p: 90, ms: 389.675 },
  { p: 95, ms: 796.703 },
  { p: 96, ms: 962.37 },
  { p: 99, ms: 159682.596 },
  { p: 99.9, ms: 239627.084 },
];

describe('linearHistogramRange', () => {
  it('stops at the body when the tail is long', () => {
    // P99 159,683 > 4 x P90 (1,558.7): the largest percentile within 1,558.7 is P96 = 962.37,
    // rounded up to 1,000.
    expect(linearHistogramRange(demoPercentiles)).toEqual({ fromMs: 0, toMs: 1000 });
  });
  it('goes to P99 rounded up when the tail is short', () => {
    // 310 <= 4 x 100, so P99 it is: 310 -> 400.
    const ps = [
      { p: 50, ms: 20 },
      { p: 90, ms: 100 },
      { p: 99, ms: 310 },
    ];
    expect(linearHistogramRange(ps)).toEqual({ fromMs: 0, toMs: 400 });
  });
  it('falls back to P90 when nothing above it is in the body', () => {
    // 4 x 100 = 400: P95 (900) and P99 (5,000) are both beyond, so the end is P90 = 100.
    const ps = [
      { p: 50, ms: 10 },
      { p: 90, ms: 100 },
      { p: 95, ms: 900 },
      { p: 99, ms: 5000 },
    ];
    expect(linearHistogramRange(ps)).toEqual({ fromMs: 0, toMs: 100 });
  });
  it('uses the largest percentile when P99 was not asked for', () => {
    const ps = [
      { p: 50, ms: 30 },
      { p: 90, ms: 70 },
    ];
    expect(linearHistogramRange(ps)).toEqual({ fromMs: 0, toMs: 80 });
  });
  it('has nothing to show without positive latencies', () => {
    expect(linearHistogramRange([])).toBeNull();
    expect(
      linearHistogramRange([
        { p: 50, ms: -5 },
        { p: 99, ms: -1 },
      ]),
    ).toBeNull();
  });
});

describe('prepareHistogram', () => {
  it('places linear bars at their middles and notes what is off the chart', () => {
    const h = prepareHistogram({
      scale: 'linear',
      histogram: [
        { fromMs: 0, toMs: 10, count: 5 },
        { fromMs: 10, toMs: 20, count: 15 },
        { fromMs: 20, toMs: 30, count: 0 },
      ],
      underflow: 3,
      overflow: 768,
    });
    expect(h?.bars.map((b) => b.midMs)).toEqual([5, 15, 25]);
    expect(h?.bars[1]?.label).toBe('10.0 – 20.0 ms');
    expect(h?.domain).toEqual([0, 30]);
    // 30 / 6 = 5 -> a tick every 5 ms.
    expect(h?.ticks).toEqual([0, 5, 10, 15, 20, 25, 30]);
    expect(h?.maxCount).toBe(15);
    // 15 rounds up to 15; 15 / 4 = 3.75 -> a tick every 5.
    expect(h?.countDomain).toEqual([0, 15]);
    expect(h?.countTicks).toEqual([0, 5, 10, 15]);
    expect(h?.belowNote).toBe('3 before the change not shown');
    expect(h?.aboveNote).toBe('768 above 30 ms not shown');
  });
  it('places log bars at their geometric middles and drops the bin at or below zero', () => {
    const h = prepareHistogram({
      scale: 'log',
      histogram: [
        { fromMs: -12.197, toMs: 0.001, count: 3 },
        { fromMs: 10, toMs: 100, count: 50 },
        { fromMs: 100, toMs: 1000, count: 1020 },
      ],
      underflow: 0,
      overflow: 0,
    });
    expect(h?.bars).toHaveLength(2);
    // sqrt(10 * 100) = 31.62..., sqrt(100 * 1000) = 316.2...
    expect(h?.bars[0]?.midMs).toBeCloseTo(31.6228, 4);
    expect(h?.bars[1]?.midMs).toBeCloseTo(316.228, 3);
    expect(h?.domain).toEqual([10, 1000]);
    expect(h?.ticks).toEqual([10, 100, 1000]);
    // 1,020 rounds up to 1,200; 1,200 / 4 = 300 -> 500.
    expect(h?.countDomain).toEqual([0, 1200]);
    expect(h?.countTicks).toEqual([0, 500, 1000]);
    expect(h?.belowNote).toBe('3 below 10 ms not shown');
    expect(h?.aboveNote).toBeNull();
  });
  it('says the overflow in seconds past one second', () => {
    const h = prepareHistogram({
      scale: 'linear',
      histogram: [{ fromMs: 0, toMs: 1000, count: 19_220 }],
      underflow: 0,
      overflow: 1234,
    });
    expect(h?.aboveNote).toBe('1,234 above 1 s not shown');
    expect(h?.belowNote).toBeNull();
  });
  it('has nothing to draw without bins', () => {
    expect(
      prepareHistogram({ scale: 'linear', histogram: [], underflow: 0, overflow: 0 }),
    ).toBeNull();
  });
});

describe('the within line on the linear view', () => {
  it('widens the range to reach the threshold', () => {
    // Body ends at P99 310 -> 400 without it; a 1 s threshold stretches it to 1,000.
    const ps = [
      { p: 50, ms: 20 },
      { p: 90, ms: 100 },
      { p: 99, ms: 310 },
    ];
    expect(linearHistogramRange(ps, 1000)).toEqual({ fromMs: 0, toMs: 1000 });
    // A threshold inside the range changes nothing: 250 < 310 -> 400.
    expect(linearHistogramRange(ps, 250)).toEqual({ fromMs: 0, toMs: 400 });
    // The demo: P96 962.37 -> 1,000 already reaches 1 s; 2.5 s -> 2,500 (a 1-2-2.5-5 end).
    expect(linearHistogramRange(demoPercentiles, 1000)).toEqual({ fromMs: 0, toMs: 1000 });
    expect(linearHistogramRange(demoPercentiles, 2500)).toEqual({ fromMs: 0, toMs: 2500 });
  });
  it('does not make a range out of a threshold alone', () => {
    expect(linearHistogramRange([{ p: 99, ms: -1 }], 1000)).toBeNull();
  });
});

describe('histogramMarkers', () => {
  const marks = { percentiles: [50, 96, 99], withinMs: 1000 };
  it('draws the percentiles and the threshold on the axis, notes the rest', () => {
    const { markers, note } = histogramMarkers(demoPercentiles, marks, [0, 1000], 'linear');
    expect(markers).toEqual([
      { ms: 71.451, label: 'P50', kind: 'percentile' },
      { ms: 962.37, label: 'P96', kind: 'percentile' },
      { ms: 1000, label: '≤ 1 s', kind: 'within' },
    ]);
    // P99 = 159,682.596 ms = 159.7 s, beyond the 1,000 ms end.
    expect(note).toBe('P99 (159.7 s) off the axis');
  });
  it('draws everything the log axis reaches', () => {
    const { markers, note } = histogramMarkers(demoPercentiles, marks, [10, 300_000], 'log');
    expect(markers.map((m) => m.label)).toEqual(['P50', 'P96', 'P99', '≤ 1 s']);
    expect(note).toBeNull();
  });
  it('leaves out a percentile the response does not hold', () => {
    const { markers } = histogramMarkers(
      demoPercentiles,
      { percentiles: [75], withinMs: null },
      [0, 1000],
      'linear',
    );
    expect(markers).toEqual([]);
  });
});
