import { describe, expect, it } from 'vitest';
import {
  alignTimeline,
  formatAxisTime,
  formatOffset,
  formatRate,
  formatValue,
  isZoomDrag,
  meanRate,
  peakRate,
  phaseKey,
  rowsInDomain,
  seriesKey,
  timeTicks,
  zoomDomain,
} from './timeline.ts';

describe('alignTimeline', () => {
  it('puts phases and series on the union of their offsets', () => {
    const phases = [
      {
        phase: 'joined',
        points: [
          { offsetMs: 0, count: 0, ratePerSec: 0 },
          { offsetMs: 1000, count: 3, ratePerSec: 3 },
          { offsetMs: 2000, count: 5, ratePerSec: 2 },
        ],
      },
      // Starts later: 0 before its first point.
      { phase: 'running', points: [{ offsetMs: 2000, count: 1, ratePerSec: 1 }] },
    ];
    const series = [
      {
        id: '7',
        name: 'cpu',
        unit: '%',
        // Every 1.5 s, from 500 ms: held between its points, null outside them.
        points: [
          { offsetMs: 500, value: 10 },
          { offsetMs: 2000, value: 40 },
        ],
      },
    ];
    const a = alignTimeline(phases, series);
    expect(a.phases.map((l) => [l.key, l.label])).toEqual([
      ['p0', 'joined'],
      ['p1', 'running'],
    ]);
    expect(a.series.map((l) => [l.key, l.label, l.unit])).toEqual([['s7', 'cpu', '%']]);
    expect(a.rows).toEqual([
      { t: 0, p0: 0, p1: 0, s7: null },
      { t: 500, p0: 0, p1: 0, s7: 10 },
      { t: 1000, p0: 3, p1: 0, s7: 10 },
      { t: 2000, p0: 5, p1: 1, s7: 40 },
    ]);
  });

  it('makes series ids safe as keys', () => {
    expect(seriesKey('a.b-c')).toBe('sa_b_c');
    expect(phaseKey(2)).toBe('p2');
  });

  it('is empty without data', () => {
    expect(alignTimeline([], []).rows).toEqual([]);
  });
});

describe('formatting', () => {
  it('writes offsets since the start', () => {
    expect(formatOffset(850)).toBe('850 ms');
    expect(formatOffset(12_345)).toBe('12.3 s');
    expect(formatOffset(60_000)).toBe('1 min 00 s');
    expect(formatOffset(125_400)).toBe('2 min 05 s');
    expect(formatOffset(3_720_000)).toBe('1 h 02 min');
    expect(formatOffset(null)).toBe('—');
  });

  it('writes axis ticks in seconds on short spans and m:ss on long ones', () => {
    expect(formatAxisTime(45_000, 60_000)).toBe('45 s');
    expect(formatAxisTime(2_500, 60_000)).toBe('2.5 s');
    expect(formatAxisTime(125_000, 900_000)).toBe('2:05');
    expect(formatAxisTime(0, 900_000)).toBe('0:00');
  });

  it('writes values in their unit', () => {
    expect(formatValue(512, 'By')).toBe('512 B');
    expect(formatValue(100, 'By')).toBe('100 B');
    expect(formatValue(1536, 'By')).toBe('1.5 KiB');
    expect(formatValue(300 * 1024 * 1024, 'By')).toBe('300 MiB');
    expect(formatValue(2.5 * 1024 ** 3, 'By')).toBe('2.5 GiB');
    expect(formatValue(9.1797, 'ms')).toBe('9.18 ms');
    expect(formatValue(1500, 'ms')).toBe('1.500 s');
    expect(formatValue(12_346, 'ms')).toBe('12.35 s');
    expect(formatValue(0.25, 's')).toBe('250.0 ms');
    expect(formatValue(720, 's')).toBe('720.0 s');
    expect(formatValue(1_200, 's')).toBe('20.00 min');
    expect(formatValue(42.25, '%')).toBe('42.3 %');
    expect(formatValue(13, '{stream}')).toBe('13 stream');
    expect(formatValue(308.5, null)).toBe('308.5');
    expect(formatValue(1234.5, null)).toBe('1,235');
    expect(formatValue(12_345, null)).toBe('12.3k');
    expect(formatValue(2_500_000, '1')).toBe('2.5M');
    expect(formatValue(0.0126, null)).toBe('0.013');
    expect(formatValue(null, 'ms')).toBe('—');
  });

  it('writes rates per second', () => {
    expect(formatRate(50 / 60)).toBe('0.83/s');
    expect(formatRate(16.666)).toBe('16.67/s');
    expect(formatRate(null)).toBe('—');
  });
});

describe('zoom', () => {
  it('is the whole run without a selection', () => {
    expect(zoomDomain([0, 900_000], null)).toEqual([0, 900_000]);
  });

  it('takes a selection dragged either way, clamped to the run', () => {
    expect(zoomDomain([0, 900_000], { from: 300_000, to: 120_000 })).toEqual([120_000, 300_000]);
    expect(zoomDomain([0, 900_000], { from: 800_000, to: 950_000 })).toEqual([800_000, 900_000]);
  });

  it('ignores a selection narrower than the minimum span', () => {
    expect(zoomDomain([0, 60_000], { from: 1000, to: 1500 }, 1000)).toEqual([0, 60_000]);
  });

  it('tells a drag from a click', () => {
    expect(isZoomDrag(5000, 5000, [0, 60_000])).toBe(false);
    // 1 % of 60 s is 600 ms.
    expect(isZoomDrag(5000, 5500, [0, 60_000])).toBe(false);
    expect(isZoomDrag(5000, 5600, [0, 60_000])).toBe(true);
  });

  it('keeps the rows in the domain and one either side', () => {
    const rows = [0, 1000, 2000, 3000, 4000].map((t) => ({ t }));
    expect(rowsInDomain(rows, [1500, 2500]).map((r) => r.t)).toEqual([1000, 2000, 3000]);
    expect(rowsInDomain(rows, [0, 4000]).map((r) => r.t)).toEqual([0, 1000, 2000, 3000, 4000]);
  });
});

describe('rates', () => {
  const points = [
    { offsetMs: 0, count: 10, ratePerSec: 10 },
    { offsetMs: 1000, count: 25, ratePerSec: 15 },
    { offsetMs: 2000, count: 30, ratePerSec: 5 },
    { offsetMs: 3000, count: 30, ratePerSec: 0 },
  ];

  it('is the count over the time to 100 %', () => {
    // 50 nodes by 60 s.
    expect(meanRate(50, 60_000, [], 1000)).toBeCloseTo(50 / 60, 10);
  });

  it('falls back to the end of the bucket in which the count last grew', () => {
    // The count reaches 30 in the bucket starting at 2 s, which ends at 3 s: 30 / 3 s.
    expect(meanRate(30, null, points, 1000)).toBe(10);
    expect(meanRate(0, null, [], 1000)).toBe(0);
  });

  it('finds the peak rate', () => {
    expect(peakRate(points)).toBe(15);
    expect(peakRate([])).toBeNull();
  });
});

describe('timeTicks', () => {
  it('picks round steps', () => {
    // 15 min: 900 s / 8 = 112.5 s -> 120 s steps.
    expect(timeTicks([0, 900_000])).toEqual([
      0, 120_000, 240_000, 360_000, 480_000, 600_000, 720_000, 840_000,
    ]);
    // 60 s: 7.5 s -> 10 s steps.
    expect(timeTicks([0, 60_000])).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
    // A zoomed window starts at the first round tick inside it.
    expect(timeTicks([12_300, 19_800])).toEqual([
      13_000, 14_000, 15_000, 16_000, 17_000, 18_000, 19_000,
    ]);
  });
});
