// Generated inputs against independent recomputations of the clock maths: an exchange built
// from a known offset and known one-way delays, intervals intersected by sorting endpoints,
// a node clock read by scanning its reports one by one, and a node time solved in closed form.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  agreeingOffset,
  correctedCuts,
  correctLatencies,
  exchangeProblem,
  NodeClock,
  nodeClocks,
  nodeCutUs,
  offsetFromExchange,
  rawCuts,
  withClockError,
} from './clock-correction.ts';

const us = fc.integer({ min: -1_000_000, max: 1_000_000 });
const delay = fc.integer({ min: 0, max: 100_000 });

describe('an exchange made from a known offset and delays', () => {
  it('is accepted, and its offset is the true one within half the round trip', () => {
    fc.assert(
      fc.property(us, us, delay, delay, delay, (trueOffset, refSend, out, hold, back) => {
        // Reference clock: the node sends at refSend, the reference receives `out` later,
        // holds it `hold`, and the answer takes `back`. The node's clock reads ref + offset.
        const t1 = refSend + trueOffset;
        const t2 = refSend + out;
        const t3 = t2 + hold;
        const t4 = t3 + back + trueOffset;
        expect(exchangeProblem(t1, t2, t3, t4)).toBeUndefined();
        const { offsetUs, errorUs } = offsetFromExchange(t1, t2, t3, t4);
        // The round trip without the hold, halved; the estimate is off by (out - back) / 2.
        expect(errorUs).toBe((out + back) / 2);
        expect(offsetUs).toBe(trueOffset + (back - out) / 2);
        expect(Math.abs(offsetUs - trueOffset)).toBeLessThanOrEqual(errorUs);
      }),
    );
  });

  it('zero delays and no hold are still an exchange (every bound is inclusive)', () => {
    // t4 = t1, t3 = t2, and round trip = hold: each check's boundary.
    expect(exchangeProblem(500, 200, 200, 500)).toBeUndefined();
    expect(offsetFromExchange(500, 200, 200, 500)).toEqual({ offsetUs: 300, errorUs: 0 });
    // The reference held it exactly as long as the node waited.
    expect(exchangeProblem(0, 10, 50, 40)).toBeUndefined();
    expect(offsetFromExchange(0, 10, 50, 40)).toEqual({ offsetUs: -10, errorUs: 0 });
  });

  it('names the timestamp at fault one microsecond past each bound, and says why', () => {
    expect(exchangeProblem(500, 200, 200, 499)).toEqual({
      field: 't4',
      message: 't4 (node receives) is earlier than t1 (node sends)',
    });
    expect(exchangeProblem(0, 200, 199, 500)).toEqual({
      field: 't3',
      message: 't3 (reference sends) is earlier than t2 (reference receives)',
    });
    const held = exchangeProblem(0, 10, 51, 40);
    expect(held?.field).toBe('t4');
    expect(held?.message).toMatch(/round-trip delay .* is negative/);
  });
});

/** Two intervals' intersection by sorting the four endpoints: the middle two, when they overlap. */
function intersect(a: [number, number], b: [number, number]): [number, number] | undefined {
  const overlap = a[0] <= b[1] && b[0] <= a[1];
  const [, lo, hi] = [...a, ...b].sort((x, y) => x - y) as [number, number, number, number];
  return overlap ? [lo, hi] : undefined;
}

describe('agreeingOffset', () => {
  it('is the midpoint and half-width of the two intervals overlap, or nothing', () => {
    const m = fc.record({ offsetUs: us, errorUs: fc.integer({ min: 0, max: 50_000 }) });
    fc.assert(
      fc.property(m, m, (a, b) => {
        const both = intersect(
          [a.offsetUs - a.errorUs, a.offsetUs + a.errorUs],
          [b.offsetUs - b.errorUs, b.offsetUs + b.errorUs],
        );
        const got = agreeingOffset(a, b);
        if (!both) expect(got).toBeUndefined();
        else
          expect(got).toEqual({
            offsetUs: (both[0] + both[1]) / 2,
            errorUs: (both[1] - both[0]) / 2,
          });
        // Symmetric in its two measurements.
        expect(agreeingOffset(b, a)).toEqual(got);
      }),
    );
  });

  it('intervals that only touch agree on that point; a hair apart (rounding) too, with no error', () => {
    expect(agreeingOffset({ offsetUs: 0, errorUs: 5 }, { offsetUs: 10, errorUs: 5 })).toEqual({
      offsetUs: 5,
      errorUs: 0,
    });
    // lo = 5 + 5e-7 > hi = 5: within the 1e-6 slack, the midpoint with a zero error.
    expect(
      agreeingOffset({ offsetUs: 0, errorUs: 5 }, { offsetUs: 10.0000005, errorUs: 5 }),
    ).toEqual({ offsetUs: 5.00000025, errorUs: 0 });
    // 2e-6 apart is past the slack.
    expect(
      agreeingOffset({ offsetUs: 0, errorUs: 5 }, { offsetUs: 10.000002, errorUs: 5 }),
    ).toBeUndefined();
  });
});

/** The offset at `ref` by scanning the reports one by one (sorted, at distinct moments). */
function scanOffset(reports: { atUs: number; offsetUs: number; errorUs: number }[], ref: number) {
  const first = reports[0] as (typeof reports)[number];
  const last = reports[reports.length - 1] as (typeof reports)[number];
  if (ref <= first.atUs) return { offsetUs: first.offsetUs, errorUs: first.errorUs };
  if (ref >= last.atUs) return { offsetUs: last.offsetUs, errorUs: last.errorUs };
  for (let i = 0; i + 1 < reports.length; i++) {
    const a = reports[i] as (typeof reports)[number];
    const b = reports[i + 1] as (typeof reports)[number];
    if (a.atUs <= ref && ref < b.atUs) {
      const share = (ref - a.atUs) / (b.atUs - a.atUs);
      return {
        offsetUs: a.offsetUs * (1 - share) + b.offsetUs * share,
        errorUs: Math.max(a.errorUs, b.errorUs),
      };
    }
  }
  throw new Error('unreachable');
}

const reading = fc.record({
  atUs: fc.integer({ min: 0, max: 10_000_000 }),
  offsetUs: fc.integer({ min: -200_000, max: 200_000 }),
  errorUs: fc.integer({ min: 0, max: 5_000 }),
});

describe('NodeClock', () => {
  it('reads the offset the reports give at any moment, in whatever order they came', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(reading, { minLength: 1, maxLength: 12, selector: (r) => r.atUs }),
        fc.array(fc.integer({ min: -1_000_000, max: 11_000_000 }), { minLength: 1, maxLength: 20 }),
        (readings, moments) => {
          const clock = new NodeClock(readings);
          expect(clock.reports).toBe(readings.length);
          const sorted = [...readings].sort((a, b) => a.atUs - b.atUs);
          // Every report's own moment, and the moments between and beyond them.
          for (const ref of [...moments, ...readings.map((r) => r.atUs)]) {
            const want = scanOffset(sorted, ref);
            const got = clock.offsetAt(ref);
            expect(got.errorUs).toBe(want.errorUs);
            expect(got.offsetUs).toBeCloseTo(want.offsetUs, 6);
          }
        },
      ),
    );
  });

  it('readings at one moment are one report: their mean offset and their largest error', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ offsetUs: us, errorUs: fc.integer({ min: 0, max: 5_000 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        (same) => {
          const at = 1_000_000;
          const later = { atUs: 2_000_000, offsetUs: 0, errorUs: 0 };
          const clock = new NodeClock([...same.map((r) => ({ ...r, atUs: at })), later]);
          expect(clock.reports).toBe(2);
          const mean = same.reduce((s, r) => s + r.offsetUs, 0) / same.length;
          const largest = Math.max(...same.map((r) => r.errorUs));
          const got = clock.offsetAt(at);
          expect(got.offsetUs).toBeCloseTo(mean, 6);
          expect(got.errorUs).toBe(largest);
          // Before it, the same report held.
          expect(clock.offsetAt(0).errorUs).toBe(largest);
        },
      ),
    );
  });

  it('needs a reading', () => {
    expect(() => new NodeClock([])).toThrow(/needs a reading/);
  });

  it('maps a node time to the reference time whose offset it carries, on a drifting clock', () => {
    // Offsets o0 at 0 and o0 + rate * T at T: between them offset(ref) = o0 + rate * ref, so
    // node = ref + o0 + rate * ref, ref = (node - o0) / (1 + rate), exactly.
    fc.assert(
      fc.property(
        fc.integer({ min: -200_000, max: 200_000 }),
        // Drift up to 1e-3 (1 ms a second, far past a real clock's).
        fc.integer({ min: -1000, max: 1000 }).map((ppm) => ppm / 1_000_000),
        fc.integer({ min: 300_000, max: 9_700_000 }),
        (o0, rate, refTrue) => {
          const T = 10_000_000;
          const clock = new NodeClock([
            { atUs: 0, offsetUs: o0, errorUs: 100 },
            { atUs: T, offsetUs: o0 + rate * T, errorUs: 300 },
          ]);
          const node = refTrue + o0 + rate * refTrue;
          const r = clock.toReference(node);
          // Three evaluations of the offset leave rate^3 * |offset| (2e-4 us at 1e-3 and 200 ms).
          expect(Math.abs(r.refUs - (node - o0) / (1 + rate))).toBeLessThan(1e-3);
          expect(r.errorUs).toBe(300);
        },
      ),
    );
  });

  it('settles a steep drift in three readings of the offset, not two', () => {
    // Offset 0 at 0, 100,000 at 1,000,000: rate 0.1. Node 550,000 is reference 500,000
    // (offset 50,000). Each reading of the offset cuts the miss tenfold: 5,000, 500, then 50 us.
    const clock = new NodeClock([
      { atUs: 0, offsetUs: 0, errorUs: 1 },
      { atUs: 1_000_000, offsetUs: 100_000, errorUs: 1 },
    ]);
    const r = clock.toReference(550_000);
    // ref0 = 550,000 - 55,000 = 495,000; ref1 = 550,000 - 49,500 = 500,500;
    // ref = 550,000 - 50,050 = 499,950.
    expect(r.refUs).toBeCloseTo(499_950, 6);
  });
});

describe('nodeClocks and correctLatencies', () => {
  it('correct each first application by its own node clock, and count what was left raw', () => {
    const node = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(
        // Constant offsets per node (one report each), nodes c and d have none.
        fc.record({ a: us, b: us }),
        fc.record({ a: fc.integer({ min: 0, max: 900 }), b: fc.integer({ min: 0, max: 900 }) }),
        fc.array(fc.record({ node: fc.option(node), atUs: us }), { maxLength: 30 }),
        us,
        (offsets, errors, firsts, changeAtUs) => {
          const clocks = nodeClocks([
            { node: 'a', atUs: 0, offsetUs: offsets.a, errorUs: errors.a },
            { node: 'b', atUs: 0, offsetUs: offsets.b, errorUs: errors.b },
          ]);
          expect([...clocks.keys()].sort()).toEqual(['a', 'b']);
          const c = correctLatencies(firsts, changeAtUs, clocks);
          const has = (n: string | null): n is 'a' | 'b' => n === 'a' || n === 'b';
          expect([...c.latencies]).toEqual(
            firsts.map((f) => f.atUs - (has(f.node) ? offsets[f.node] : 0) - changeAtUs),
          );
          const named = new Set(firsts.map((f) => f.node).filter((n) => n !== null));
          expect(c.clockNodes).toBe([...named].filter(has).length);
          expect(c.uncorrectedNodes).toBe([...named].filter((n) => !has(n)).length);
          expect(c.uncorrectedProxies).toBe(firsts.filter((f) => !has(f.node)).length);
          expect(c.maxErrorUs).toBe(
            Math.max(
              0,
              ...firsts.filter((f) => has(f.node)).map((f) => errors[f.node as 'a' | 'b']),
            ),
          );
        },
      ),
    );
  });

  it('groups reports by node: interleaved reports build each node its own clock', () => {
    const clocks = nodeClocks([
      { node: 'x', atUs: 0, offsetUs: 10, errorUs: 1 },
      { node: 'y', atUs: 0, offsetUs: -50, errorUs: 7 },
      { node: 'x', atUs: 100, offsetUs: 30, errorUs: 2 },
      { node: 'y', atUs: 100, offsetUs: -50, errorUs: 9 },
      { node: 'x', atUs: 200, offsetUs: 30, errorUs: 3 },
    ]);
    expect(clocks.get('x')?.reports).toBe(3);
    expect(clocks.get('y')?.reports).toBe(2);
    expect(clocks.get('x')?.offsetAt(50)).toEqual({ offsetUs: 20, errorUs: 2 });
    expect(clocks.get('y')?.offsetAt(50)).toEqual({ offsetUs: -50, errorUs: 9 });
  });
});

describe('tail cuts', () => {
  it('raw: the change time plus the whole microseconds of the threshold', () => {
    fc.assert(
      fc.property(
        us,
        fc.integer({ min: 0, max: 4_000_000 }),
        fc.integer({ min: 0, max: 99 }),
        (at, whole, hundredths) => {
          const t = whole + hundredths / 100;
          const cut = rawCuts(at, t);
          expect(cut).toEqual({ defaultUs: at + whole, nodes: [], cutsUs: [] });
          // A latency (whole us) is over the threshold exactly when its stamp is past the cut.
          for (const stamp of [cut.defaultUs, cut.defaultUs + 1])
            expect(stamp - at > t).toBe(stamp > cut.defaultUs);
        },
      ),
    );
  });

  it('corrected: per clock node, the last stamp whose corrected latency is within the threshold', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -200_000, max: 200_000 }),
        fc.integer({ min: -200_000, max: 200_000 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.integer({ min: 0, max: 3 }).map((q) => q / 4),
        // The change, on the reference clock, somewhere in the clock reports' span.
        fc.integer({ min: 0, max: 2_000_000 }),
        (o0, o1, whole, frac, changeAt) => {
          const threshold = whole + frac;
          const clocks = nodeClocks([
            { node: 'p', atUs: 0, offsetUs: o0, errorUs: 10 },
            { node: 'p', atUs: 4_000_000, offsetUs: o1, errorUs: 10 },
            { node: 'q', atUs: 0, offsetUs: o1, errorUs: 10 },
          ]);
          const cuts = correctedCuts(clocks, changeAt, threshold);
          expect(cuts.defaultUs).toBe(changeAt + whole);
          expect(cuts.nodes).toEqual(['p', 'q']);
          cuts.nodes.forEach((n, i) => {
            const cut = cuts.cutsUs[i] as number;
            expect(cut).toBe(nodeCutUs(clocks.get(n) as NodeClock, changeAt, threshold));
            const lat = (atUs: number) =>
              correctLatencies([{ node: n, atUs }], changeAt, clocks).latencies[0] as number;
            expect(lat(cut)).toBeLessThanOrEqual(threshold);
            expect(lat(cut + 1)).toBeGreaterThan(threshold);
          });
          // q holds one offset: its cut is the change plus the threshold's whole us, moved by
          // that offset.
          expect(cuts.cutsUs[1]).toBe(changeAt + whole + o1);
        },
      ),
    );
  });
});

describe('withClockError', () => {
  it('widens each percentile by the clock error both ways and marks it inexact', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5_000, max: 5_000_000 }), { maxLength: 5 }),
        fc.integer({ min: 0, max: 50_000 }),
        (values, errorUs) => {
          const ps = values.map((v, i) => ({
            p: i + 50,
            ms: v / 1000,
            exact: true,
            method: 'raw' as const,
          }));
          expect(withClockError(ps, errorUs)).toEqual(
            ps.map((p) => ({
              p: p.p,
              ms: p.ms,
              exact: false,
              method: 'clock-corrected',
              clockErrorMs: errorUs / 1000,
              lower: p.ms - errorUs / 1000,
              upper: p.ms + errorUs / 1000,
            })),
          );
        },
      ),
    );
  });
});
