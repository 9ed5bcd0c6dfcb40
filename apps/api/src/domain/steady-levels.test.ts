import { describe, expect, it } from 'vitest';
import { storedRow } from './series-math.test-fixtures.ts';
import type { StoredRow } from './series-math.ts';
import { cpuCoresRows, isCpuSecondsCounter, peakAndSteady } from './steady-levels.ts';

describe('peakAndSteady', () => {
  it('takes the peak from interval maxima and the steady mean from the last join on', () => {
    const rows = [
      { tMs: 0, value: 10, max: 12 },
      { tMs: 1000, value: 40, max: 55 },
      { tMs: 2000, value: 8, max: 9 },
      { tMs: 3000, value: 6, max: null },
      { tMs: 4000, value: 7, max: 7 },
    ];
    // Steady from 2 s: (8 + 6 + 7) / 3 = 7.
    expect(peakAndSteady(rows, 2000)).toEqual({ peak: 55, steady: 7 });
  });

  it('has no steady value without a last join or without rows after it', () => {
    const rows = [{ tMs: 0, value: 3, max: 3 }];
    expect(peakAndSteady(rows, null)).toEqual({ peak: 3, steady: null });
    expect(peakAndSteady(rows, 1)).toEqual({ peak: 3, steady: null });
    expect(peakAndSteady([], 0)).toEqual({ peak: null, steady: null });
  });

  it('skips values that are not numbers', () => {
    const rows = [
      { tMs: 0, value: Number.NaN, max: null },
      { tMs: 5, value: 4, max: null },
    ];
    expect(peakAndSteady(rows, 0)).toEqual({ peak: 4, steady: 4 });
    // An interval's max that is not a number leaves the row's own value as its high.
    expect(peakAndSteady([{ tMs: 0, value: 4, max: Number.NaN }], 0)).toEqual({
      peak: 4,
      steady: 4,
    });
  });

  it('keeps a negative level negative when no max was kept', () => {
    const rows = [
      { tMs: 0, value: -5, max: null },
      { tMs: 10, value: -3, max: null },
    ];
    expect(peakAndSteady(rows, 0)).toEqual({ peak: -3, steady: -4 });
  });
});

/** A stored row at t = 0 of no interval (the series-math tests' row otherwise). */
const stored = (over: Partial<StoredRow>): StoredRow => storedRow({ intervalMs: 0, ...over });

describe('CPU seconds as cores', () => {
  it('knows a counter of CPU seconds by kind, name and unit', () => {
    expect(
      isCpuSecondsCounter({ name: 'process_cpu_seconds_total', kind: 'counter', unit: 's' }),
    ).toBe(true);
    expect(
      isCpuSecondsCounter({ name: 'process_cpu_seconds_total', kind: 'counter', unit: null }),
    ).toBe(true);
    expect(isCpuSecondsCounter({ name: 'pilot_cpu_pct', kind: 'gauge', unit: '%' })).toBe(false);
    expect(isCpuSecondsCounter({ name: 'xds_pushes', kind: 'counter', unit: 's' })).toBe(false);
    // A gauge is a level already, whatever its name.
    expect(
      isCpuSecondsCounter({ name: 'process_cpu_seconds_total', kind: 'gauge', unit: 's' }),
    ).toBe(false);
    // Unit s names seconds without the name saying so; without it, the name must end in seconds.
    expect(isCpuSecondsCounter({ name: 'container_cpu_usage', kind: 'counter', unit: 's' })).toBe(
      true,
    );
    expect(isCpuSecondsCounter({ name: 'container_cpu_usage', kind: 'counter', unit: null })).toBe(
      false,
    );
    expect(isCpuSecondsCounter({ name: 'process_cpu_seconds', kind: 'counter', unit: null })).toBe(
      true,
    );
    expect(
      isCpuSecondsCounter({ name: 'process_cpu_seconds_total_x', kind: 'counter', unit: null }),
    ).toBe(false);
  });

  it('divides each increase by the time it accrued in, per stream, with the ramp left out of steady', () => {
    // A stream started at the run's start (0), scraped every 10 s: 2 cores for a minute
    // (+20 CPU s per scrape), then half a core (+5). A point before the run in another stream
    // (started at -100 s, 300 CPU s at -5 s) is where that stream's first increase counts from.
    const cum = (t: number, last: number, startAtMs = 0) =>
      stored({ tMs: t * 1000, startAtMs, last });
    const rows = [
      ...[10, 20, 30, 40, 50, 60].map((t) => cum(t, 2 * t)),
      ...[70, 80, 90].map((t) => cum(t, 120 + 0.5 * (t - 60))),
      cum(-5, 300, -100_000),
      cum(5, 303, -100_000),
    ];
    const cores = cpuCoresRows(rows, 0);
    // -5 s -> 5 s: 3 CPU s in 10 s = 0.3; the run's stream: 20 / 10 s = 2 from 0 s.
    expect(cores.map((r) => [r.fromMs, r.tMs, r.value])).toEqual([
      [-5000, 5000, 0.3],
      [0, 10_000, 2],
      [10_000, 20_000, 2],
      [20_000, 30_000, 2],
      [30_000, 40_000, 2],
      [40_000, 50_000, 2],
      [50_000, 60_000, 2],
      [60_000, 70_000, 0.5],
      [70_000, 80_000, 0.5],
      [80_000, 90_000, 0.5],
    ]);
    // Steady from 60 s: only the intervals that began there, 0.5 cores; peak 2 cores.
    expect(peakAndSteady(cores, 60_000)).toEqual({ peak: 2, steady: 0.5 });
  });

  it('reads a restart as a new count, and a delta row as its sum over its interval', () => {
    const rows = [
      stored({ tMs: 10_000, startAtMs: 0, last: 10 }),
      stored({ tMs: 20_000, startAtMs: 0, last: 4 }), // restarted: 4 CPU s since 0 s
      stored({ tMs: 30_000, intervalMs: 10_000, sum: 15 }),
    ];
    expect(cpuCoresRows(rows, 0).map((r) => r.value)).toEqual([1, 0.2, 1.5]);
  });

  it('adds replicas whose intervals match, and reads an unchanged counter as 0 cores', () => {
    // Two replicas' streams (started at 0 and 5 ms), given out of time order. A: 10, 30, 40
    // CPU s at 10, 20, 30 s; B: 10, 25, 25. From 10 s to 20 s: 2 + 1.5 cores; from 20 s to
    // 30 s: 1 + 0 (B idle).
    const a = (t: number, last: number) => stored({ tMs: t, startAtMs: 0, last });
    const b = (t: number, last: number) => stored({ tMs: t, startAtMs: 5, last });
    const rows = [a(20_000, 30), b(10_000, 10), a(10_000, 10), b(20_000, 25), a(30_000, 40)];
    rows.push(b(30_000, 25));
    expect(cpuCoresRows(rows, 0).map((r) => [r.fromMs, r.tMs, r.value])).toEqual([
      [0, 10_000, 1],
      [5, 10_000, 10 / 9.995],
      [10_000, 20_000, 3.5],
      [20_000, 30_000, 1],
    ]);
  });

  it('counts delta rows from the run start on, with a sum, over an interval of some length', () => {
    const rows = [
      stored({ tMs: -10_000, intervalMs: 10_000, sum: 7 }),
      stored({ tMs: 0, intervalMs: 10_000, sum: 5 }),
      stored({ tMs: 10_000, intervalMs: 10_000, sum: null }),
      stored({ tMs: 20_000, intervalMs: 0, sum: 3 }),
    ];
    expect(cpuCoresRows(rows, 0).map((r) => [r.fromMs, r.tMs, r.value])).toEqual([
      [0, 10_000, 0.5],
    ]);
  });

  it('counts a stream from its point at or before the run start, never from its start before it', () => {
    const rows = [
      // Started before the run, two points before it: nothing of the run yet, then 0 s -> 10 s.
      stored({ tMs: -20_000, startAtMs: -100_000, last: 100 }),
      stored({ tMs: -10_000, startAtMs: -100_000, last: 110 }),
      stored({ tMs: 0, startAtMs: -100_000, last: 120 }),
      stored({ tMs: 10_000, startAtMs: -100_000, last: 125 }),
      // Started before the run, first seen in it: no point to count its first increase from.
      stored({ tMs: 10_000, startAtMs: -50_000, last: 40 }),
      // Started at its first point: no time to divide by.
      stored({ tMs: 30_000, startAtMs: 30_000, last: 0 }),
    ];
    expect(cpuCoresRows(rows, 0).map((r) => [r.fromMs, r.tMs, r.value])).toEqual([
      [-10_000, 0, 1],
      [0, 10_000, 0.5],
    ]);
  });
});
