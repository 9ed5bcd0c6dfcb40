import { describe, expect, it } from 'vitest';
import { encodeDistribution } from './distribution.ts';
import { storedRow } from './series-math.test-fixtures.ts';
import { bucketize, bucketWidth, combineStats, normalize } from './series-math.ts';
import { encodeSketch, newSketch, sketchFromBuckets, sketchFromExponential } from './sketch.ts';

const row = storedRow;

describe('combining stored rows', () => {
  it('sums counter rows of several replicas in one interval', () => {
    const rows = [
      row({ tMs: 0, sum: 10, count: 3 }),
      row({ tMs: 0, sum: 5, count: 2 }),
      row({ tMs: 1000, sum: 1, count: 1 }),
    ];
    const stats = combineStats('counter', normalize('counter', rows, 0));
    expect(stats).toMatchObject({ count: 6, sum: 16, min: 1, max: 15 });
    expect(stats.last).toBeNull();
  });

  it('takes the last gauge by time across replicas', () => {
    const rows = [
      row({ tMs: 0, last: 7, min: 1, max: 9, lastAtMs: 900 }),
      row({ tMs: 0, last: 3, min: 3, max: 3, lastAtMs: 950 }),
      row({ tMs: 1000, last: 4, min: 2, max: 4, lastAtMs: 1500 }),
    ];
    const normal = normalize('gauge', rows, 0);
    expect(combineStats('gauge', normal)).toMatchObject({ last: 4, min: 1, max: 9, sum: null });
    const [b] = bucketize('gauge', normal.slice(0, 2), 0, 1000, 1);
    expect(b).toMatchObject({ value: 3, min: 1, max: 9 });
  });

  it('turns OTLP cumulative sums into increases, with resets and the run start', () => {
    const start = 1_000;
    const rows = [
      // A stream that began long before the run, with no point before it: its first point
      // in the run is only the reference (most of what it counts happened before the run).
      row({ tMs: 2000, startAtMs: -10_000, last: 100 }),
      row({ tMs: 3000, startAtMs: -10_000, last: 130 }),
      row({ tMs: 4000, startAtMs: -10_000, last: 20 }), // restarted with the same start
      row({ tMs: 5000, startAtMs: -10_000, last: 25 }),
      // A stream that began inside the run counts whole from its first point.
      row({ tMs: 3000, startAtMs: 2500, last: 7 }),
      row({ tMs: 4000, startAtMs: 2500, last: 9 }),
    ];
    const normal = normalize('counter', rows, start);
    expect(combineStats('counter', normal).sum).toBe(30 + 20 + 5 + 7 + 2);
    const buckets = bucketize('counter', normal, start, 1000, 5);
    expect(buckets.map((b) => [b.offsetMs, b.value])).toEqual([
      [1000, 0],
      [2000, 37],
      [3000, 22],
      [4000, 5],
    ]);
    expect(buckets[1]?.ratePerSec).toBe(37);
  });

  it("counts a stream's first increase in the run from its last point before the run", () => {
    const start = 60_000;
    const rows = [
      row({ tMs: 0, startAtMs: -600_000, last: 1000 }), // long before: not the reference
      row({ tMs: 50_000, startAtMs: -600_000, last: 1400 }), // the last before the start
      row({ tMs: 110_000, startAtMs: -600_000, last: 1450 }),
      row({ tMs: 170_000, startAtMs: -600_000, last: 1470 }),
    ];
    const normal = normalize('counter', rows, start);
    // The points before the start are no rows of the run; 1450 - 1400 is its first increase.
    expect(normal.map((r) => [r.tMs, r.value])).toEqual([
      [110_000, 50],
      [170_000, 20],
    ]);
    expect(combineStats('counter', normal)).toMatchObject({ sum: 70, min: 20, max: 50 });
  });

  it('counts a first point whole when most of the time since its start lies in the run', () => {
    const start = 60_000;
    const near = [row({ tMs: 100_000, startAtMs: 50_000, last: 12 })]; // 10 s before, 40 s in
    const far = [row({ tMs: 100_000, startAtMs: 0, last: 12 })]; // 60 s before, 40 s in
    expect(combineStats('counter', normalize('counter', near, start)).sum).toBe(12);
    expect(combineStats('counter', normalize('counter', far, start)).sum).toBe(0);
  });

  it('makes delta up-down counters a level', () => {
    const rows = [row({ tMs: 0, sum: 5 }), row({ tMs: 1000, sum: -2 }), row({ tMs: 2000, sum: 4 })];
    const normal = normalize('updowncounter', rows, 0);
    expect(normal.map((r) => r.value)).toEqual([5, 3, 7]);
    expect(combineStats('updowncounter', normal)).toMatchObject({ last: 7, min: 3, max: 7 });
  });

  it('unions set members across rows', () => {
    const rows = [
      row({ tMs: 0, members: ['a', 'b'], last: 2 }),
      row({ tMs: 0, members: ['b', 'c'], last: 2 }),
      row({ tMs: 1000, members: ['a'], last: 1 }),
    ];
    const normal = normalize('set', rows, 0);
    expect(combineStats('set', normal).count).toBe(3);
    expect(bucketize('set', normal, 0, 1000, 2).map((b) => b.value)).toEqual([3, 1]);
  });

  it('merges timer sketches for percentiles over any window', () => {
    const sketches = [0, 1].map((k) => {
      const s = newSketch();
      for (let i = 1; i <= 50; i++) s.accept(k * 50 + i);
      return s;
    });
    const rows = sketches.map((s, k) =>
      row({
        tMs: k * 1000,
        count: 50,
        sum: s.sum,
        min: s.min,
        max: s.max,
        sketch: encodeSketch(s),
      }),
    );
    const stats = combineStats('timer', normalize('timer', rows, 0));
    expect(stats).toMatchObject({ count: 100, sum: 5050, min: 1, max: 100 });
    const p99 = stats.percentiles?.find((p) => p.p === 99)?.value as number;
    expect(Math.abs(p99 - 99) / 99).toBeLessThan(0.02);
    const [b] = bucketize('timer', normalize('timer', rows, 0), 0, 2000, 1, { percentiles: true });
    expect(b?.value).toBe(50.5);
    expect(Math.abs((b?.p50 as number) - 50) / 50).toBeLessThan(0.03);
  });

  it('subtracts cumulative histogram sketches between points', () => {
    const first = sketchFromBuckets([10, 20], [5, 0, 0]);
    const second = sketchFromBuckets([10, 20], [5, 0, 3]);
    const rows = [
      row({ tMs: 1000, startAtMs: 500, count: 5, sum: 25, sketch: encodeSketch(first) }),
      row({ tMs: 2000, startAtMs: 500, count: 8, sum: 100, sketch: encodeSketch(second) }),
    ];
    const normal = normalize('histogram', rows, 0);
    expect(normal.map((r) => [r.count, r.sum])).toEqual([
      [5, 25],
      [3, 75],
    ]);
    const [b] = bucketize('histogram', normal.slice(1), 0, 1000, 3, { percentiles: true });
    expect(b?.p50).toBeGreaterThan(19);
  });
});

describe('downsampling', () => {
  it('keeps a one-interval spike as the max of its bucket', () => {
    const rows = Array.from({ length: 3600 }, (_, i) =>
      row({ tMs: i * 1000, last: i === 1234 ? 95 : 10, min: 10, max: i === 1234 ? 95 : 10 }),
    );
    const normal = normalize('gauge', rows, 0);
    const width = bucketWidth(3_600_000, 100);
    const buckets = bucketize('gauge', normal, 0, width, Math.ceil(3_600_000 / width));
    expect(buckets.length).toBeLessThanOrEqual(100);
    expect(Math.max(...buckets.map((b) => b.max as number))).toBe(95);
    expect(buckets.filter((b) => b.max === 95)).toHaveLength(1);
  });

  it('chooses tidy bucket widths that give at most the asked points', () => {
    expect(bucketWidth(3_600_000, 1000)).toBe(5000);
    expect(bucketWidth(600_000, 1000)).toBe(1000);
    expect(bucketWidth(60_000, 7)).toBe(10_000);
  });
});

describe('sketches from OTLP buckets', () => {
  it('places explicit buckets inside their bounds', () => {
    const s = sketchFromBuckets([1, 5, 10], [0, 10, 0, 2], 0.5, 40);
    expect(s.count).toBe(12);
    expect(s.getValueAtQuantile(0.5)).toBeGreaterThan(2.9);
    expect(s.getValueAtQuantile(0.5)).toBeLessThan(3.1);
    expect(s.getValueAtQuantile(1)).toBeGreaterThan(24);
  });

  it('places exponential buckets at their geometric middle', () => {
    // scale 0: base 2; bucket index 3 holds (8, 16].
    const s = sketchFromExponential({
      scale: 0,
      zeroCount: 1,
      positive: { offset: 3, bucketCounts: [4] },
    });
    expect(s.count).toBe(5);
    expect(s.getValueAtQuantile(0.9)).toBeGreaterThan(11);
    expect(s.getValueAtQuantile(0.9)).toBeLessThan(11.7);
    expect(s.getValueAtQuantile(0)).toBe(0);
  });
});

describe('cumulative histograms and the run window', () => {
  const explicit = (counts: number[]) =>
    encodeDistribution({ form: 'explicit', bounds: [1, 10, 100, 1000], counts });
  // One stream since t = -10 s: a point before the run (t = 500) and two in it.
  const stream = [
    row({
      tMs: 500,
      startAtMs: -10_000,
      count: 2,
      sum: 5000.01,
      min: 0.01,
      max: 5000,
      sketch: explicit([1, 0, 0, 0, 1]),
    }),
    // + 0.5 and 50: the stream's min and max stay 0.01 and 5000.
    row({
      tMs: 2000,
      startAtMs: -10_000,
      count: 4,
      sum: 5050.51,
      min: 0.01,
      max: 5000,
      sketch: explicit([2, 0, 1, 0, 1]),
    }),
    // + 6000: the stream's max moves to 6000, which is this increase's.
    row({
      tMs: 3000,
      startAtMs: -10_000,
      count: 5,
      sum: 11_050.51,
      min: 0.01,
      max: 6000,
      sketch: explicit([2, 0, 1, 0, 2]),
    }),
  ];

  it("states the run's min and max only where the stream's moved, else the stream's as a bound", () => {
    const first = combineStats(
      'histogram',
      normalize('histogram', stream.slice(0, 2), 1000),
      [50, 100],
    );
    expect(first).toMatchObject({
      count: 2,
      min: null,
      max: null,
      streamMin: 0.01,
      streamMax: 5000,
    });
    // Rank 1 of (0.5, 50) is in (-inf, 1]: narrowed by the stream's min only; rank 2 in
    // (10, 100], interpolated there (not toward 5000).
    expect(first.percentiles).toEqual([
      { p: 50, value: 1, exact: false, method: 'explicit-histogram', lower: 0.01, upper: 1 },
      { p: 100, value: 100, exact: false, method: 'explicit-histogram', lower: 10, upper: 100 },
    ]);
    const both = combineStats('histogram', normalize('histogram', stream, 1000), [100]);
    // 6000 is known (the max moved in the second increase) and above the first's bound 5000.
    expect(both).toMatchObject({ count: 3, min: null, max: 6000, streamMin: 0.01 });
    expect(both.streamMax).toBeUndefined();
    // Rank 3 (6000) in (1000, inf): interpolated up to the known max.
    expect(both.percentiles?.[0]).toMatchObject({ value: 6000, lower: 1000, upper: 6000 });
  });

  it('flags figures counted from before the run: from the point before it, or from start_time', () => {
    expect(
      combineStats('histogram', normalize('histogram', stream, 1000), [], 1000).beforeRunMs,
    ).toBe(500);
    // No point before the run: the first counts whole from start_time (800, 200 ms before the
    // run, less than the 1000 ms to the point).
    const fromStart = [
      row({ tMs: 2000, startAtMs: 800, last: 5 }),
      row({ tMs: 3000, startAtMs: 800, last: 9 }),
    ];
    const stats = combineStats('counter', normalize('counter', fromStart, 1000), [], 1000);
    expect(stats).toMatchObject({ sum: 9, beforeRunMs: 200 });
    // A stream that began in the run: nothing before it.
    const inside = [row({ tMs: 2000, startAtMs: 1500, last: 5 })];
    expect(
      combineStats('counter', normalize('counter', inside, 1000), [], 1000).beforeRunMs,
    ).toBeUndefined();
  });
});
