// Generated ticks against the sorted list of the same values: percentiles at the nearest rank
// counted in integers, moments summed one value at a time, the distinct values with counts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TickCounts } from './tick-counts.ts';

/** Cases per property: `n`, or fewer when a run sets fast-check's global count (Stryker does). */
const runs = (n: number) => Math.min(n, fc.readConfigureGlobal().numRuns ?? n);

/** Ticks: many small ones (repeats), some past the first array sizes, a few past the dense range. */
const ticks = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 50 }) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 5_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: (1 << 22) - 2, max: (1 << 22) + 3 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 50_000_000 }) },
  ),
  { maxLength: 200 },
);

const counted = (values: number[], tickMs: number, below = 0, above = 0) => {
  const c = new TickCounts(tickMs, { below, above });
  for (const t of values) c.add(t);
  return c;
};

/** ticks x tickMs to 12 significant digits, as a tool's decimal output would read. */
const ms = (ticks: number, tickMs: number) => Number((ticks * tickMs).toPrecision(12));

describe('TickCounts, generated', () => {
  it('percentiles: the value at rank ceil(p x n / 100), in the order of p, bounded by the rounding', () => {
    fc.assert(
      fc.property(
        ticks,
        // p in thousandths of a percent: the rank counted in integers.
        fc.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(1, 0.1, 0.001),
        fc.constantFrom([0, 0], [0.5, 0.5], [0, 1], [1, 0]),
        (values, milli, tickMs, [below, above]) => {
          const c = counted(values, tickMs, below, above);
          const ps = milli.map((m) => m / 1000);
          const got = c.percentiles(ps);
          if (values.length === 0) {
            expect(got).toEqual([]);
            return;
          }
          const sorted = [...values].sort((a, b) => a - b);
          const exact = below === 0 && above === 0;
          const want = [...milli]
            .sort((a, b) => a - b)
            .map((m) => {
              const k = Math.max(1, Math.floor((m * sorted.length + 99_999) / 100_000));
              const t = sorted[k - 1] as number;
              return {
                p: m / 1000,
                ms: ms(t, tickMs),
                exact,
                method: 'raw',
                ...(exact
                  ? {}
                  : {
                      lower: ms(Math.max(0, t - (below as number)), tickMs),
                      upper: ms(t + (above as number), tickMs),
                    }),
              };
            });
          expect(got).toEqual(want);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('count, min, max, the distinct values in order, and the moments', () => {
    fc.assert(
      fc.property(ticks, fc.constantFrom(1, 0.1), (values, tickMs) => {
        const c = counted(values, tickMs);
        expect(c.count).toBe(values.length);
        const counts = new Map<number, number>();
        for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
        expect([...c.entries()]).toEqual([...counts].sort((a, b) => a[0] - b[0]));
        if (values.length === 0) {
          expect(c.moments()).toBeNull();
          expect([c.min, c.max]).toEqual([Infinity, -Infinity]);
          return;
        }
        expect(c.min).toBe(Math.min(...values));
        expect(c.max).toBe(Math.max(...values));
        const mean = values.reduce((a, v) => a + v, 0) / values.length;
        const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
        const m = c.moments();
        // The mean in ms to 12 significant digits.
        expect(Math.abs((m?.meanMs as number) - mean * tickMs)).toBeLessThanOrEqual(
          1e-11 * Math.abs(mean * tickMs) + 1e-12,
        );
        // Sum of squares minus the squared mean: exact enough at these magnitudes, relatively.
        expect(Math.abs((m?.stdDevMs as number) - sd * tickMs)).toBeLessThanOrEqual(
          1e-6 * (mean + 1) * tickMs + 1e-9,
        );
      }),
      { numRuns: runs(300) },
    );
  });

  it('answers in ascending p whatever the order asked, a value past the dense range left unread', () => {
    // P50 of [1, 2, 3, big] is 2.
    const c = counted([3, 1, 2, 60_000_000], 1);
    expect(c.percentiles([50, 25]).map((q) => [q.p, q.ms])).toEqual([
      [25, 1],
      [50, 2],
    ]);
  });
});
