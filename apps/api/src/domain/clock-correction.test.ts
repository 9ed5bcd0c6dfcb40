import { describe, expect, it } from 'vitest';
import { prng } from '../demo/prng.ts';
import {
  agreeingOffset,
  correctLatencies,
  exchangeProblem,
  type FirstApplication,
  NodeClock,
  nodeClocks,
  nodeCutUs,
  offsetFromExchange,
} from './clock-correction.ts';

describe('offsetFromExchange (RFC 5905 section 8, node minus reference)', () => {
  it('gives the offset and half the round-trip delay, worked by hand', () => {
    // The node's clock is 5 ms ahead. At reference time 100,000 us the node sends (its clock
    // reads 105,000); 2 ms out, the reference receives at 102,000, answers at 102,500; 4 ms
    // back, the node receives at reference 106,500, its clock reading 111,500.
    // theta = ((102000 - 105000) + (102500 - 111500)) / 2 = -6000 (reference minus node);
    // delta = (111500 - 105000) - (102500 - 102000) = 6000.
    const r = offsetFromExchange(105_000, 102_000, 102_500, 111_500);
    expect(r).toEqual({ offsetUs: 6000, errorUs: 3000 });
    // The asymmetric delays put the estimate 1 ms off the truth (5 ms), within the error.
    expect(Math.abs(r.offsetUs - 5000)).toBeLessThanOrEqual(r.errorUs);
  });

  it('is zero for synchronised clocks and symmetric delays (the RFC errata 5020 example)', () => {
    // Both clocks agree; 50 ms each way, no time at the reference.
    expect(offsetFromExchange(0, 50_000, 50_000, 100_000)).toEqual({
      offsetUs: 0,
      errorUs: 50_000,
    });
  });

  it('is negative when the node is behind', () => {
    // The node is 10 ms behind, 1 ms each way: t1 = 0 (ref 10,000), t2 = 11,000, t3 = 11,000,
    // t4 = 2,000 (ref 12,000).
    expect(offsetFromExchange(0, 11_000, 11_000, 2_000)).toEqual({
      offsetUs: -10_000,
      errorUs: 1_000,
    });
  });

  it('refuses impossible exchanges, naming the timestamp', () => {
    expect(exchangeProblem(10, 20, 30, 5)?.field).toBe('t4');
    expect(exchangeProblem(10, 30, 20, 50)?.field).toBe('t3');
    // The reference held it 100 us while the node waited 40.
    expect(exchangeProblem(0, 10, 110, 40)?.field).toBe('t4');
    expect(exchangeProblem(0, 10, 20, 40)).toBeUndefined();
  });
});

describe('agreeingOffset', () => {
  it('keeps the interval both measurements allow', () => {
    // [-4, 0] and [-1, 3] overlap in [-1, 0].
    expect(agreeingOffset({ offsetUs: -2, errorUs: 2 }, { offsetUs: 1, errorUs: 2 })).toEqual({
      offsetUs: -0.5,
      errorUs: 0.5,
    });
    expect(agreeingOffset({ offsetUs: -2, errorUs: 1 }, { offsetUs: 1, errorUs: 1 })).toBe(
      undefined,
    );
  });
});

describe('NodeClock', () => {
  const clock = new NodeClock([
    { atUs: 2_000_000, offsetUs: 3000, errorUs: 200 },
    { atUs: 1_000_000, offsetUs: 1000, errorUs: 100 },
  ]);

  it('interpolates offsets between reports, with the larger error', () => {
    expect(clock.offsetAt(1_250_000)).toEqual({ offsetUs: 1500, errorUs: 200 });
  });

  it('holds the nearest report before the first and after the last', () => {
    expect(clock.offsetAt(0)).toEqual({ offsetUs: 1000, errorUs: 100 });
    expect(clock.offsetAt(9_000_000)).toEqual({ offsetUs: 3000, errorUs: 200 });
  });

  it('maps a node time to the reference time it was', () => {
    // Reference 1,500,000: offset 2000, so the node's clock read 1,502,000.
    const r = clock.toReference(1_502_000);
    expect(r.refUs).toBeCloseTo(1_500_000, 3);
    expect(r.errorUs).toBe(200);
  });
});

/** Nearest rank, written out here: the value at rank ceil(p * n / 100) of the sorted values. */
function truthAt(sorted: number[], p: number): number {
  return sorted[Math.ceil((p * sorted.length) / 100) - 1] as number;
}

describe('correctLatencies over a synthetic run with skewed, drifting clocks', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`recovers the true nearest-rank percentiles within the stated bound (seed ${seed})`, () => {
      const r = prng(seed);
      const nodes = 400;
      const changeAtUs = 1_700_000_000_000_000;
      const runStart = changeAtUs - 60_000_000;
      const runEnd = changeAtUs + 120_000_000;
      // Each node: a true offset at the run's start and end (drift between), up to +/- 200 ms.
      const truth = Array.from({ length: nodes }, () => {
        const start = r.uniform(-200_000, 200_000);
        const drift = r.chance(0.5) ? r.uniform(-2000, 2000) : 0;
        return { start, end: start + drift };
      });
      const trueOffset = (node: number, refUs: number) => {
        const t = truth[node] as { start: number; end: number };
        return t.start + ((t.end - t.start) * (refUs - runStart)) / (runEnd - runStart);
      };
      // Reports at the start and the end, each off by up to its error; nodes 0-19 have none.
      const reports = [];
      for (let node = 20; node < nodes; node++) {
        for (const at of [runStart, runEnd]) {
          const errorUs = r.uniform(50, 1500);
          const measured = trueOffset(node, at) + r.uniform(-errorUs, errorUs);
          reports.push({ node: `n-${node}`, atUs: at, offsetUs: measured, errorUs });
        }
      }
      const clocks = nodeClocks(reports);
      const proxies = 20_000;
      const trueLatencies: number[] = [];
      const firsts: FirstApplication[] = [];
      const correctedNodes = new Set<number>();
      for (let i = 0; i < proxies; i++) {
        const node = 20 + r.int(0, nodes - 21); // proxies only on reported nodes
        correctedNodes.add(node);
        const latency = Math.round(r.logNormal(300_000, 0.8));
        const refAt = changeAtUs + latency;
        trueLatencies.push(latency);
        firsts.push({ node: `n-${node}`, atUs: Math.round(refAt + trueOffset(node, refAt)) });
      }
      const c = correctLatencies(firsts, changeAtUs, clocks);
      expect(c.uncorrectedNodes).toBe(0);
      expect(c.clockNodes).toBe(correctedNodes.size);
      const sortedTruth = [...trueLatencies].sort((a, b) => a - b);
      const sortedRaw = firsts.map((f) => f.atUs - changeAtUs).sort((a, b) => a - b);
      const sortedCorrected = [...c.latencies].sort((a, b) => a - b);
      for (const p of [50, 96, 99]) {
        const want = truthAt(sortedTruth, p);
        const got = truthAt(sortedCorrected, p);
        const trueError = Math.abs(got - want);
        // Within max(1 ms, the bound) of the truth, and the bound is never smaller than the
        // error it bounds (rounding to the microsecond aside).
        expect(trueError).toBeLessThanOrEqual(Math.max(1000, c.maxErrorUs));
        expect(c.maxErrorUs + 1).toBeGreaterThanOrEqual(trueError);
      }
      // The check has teeth: the raw latencies miss the truth by far more than the bound.
      const rawMiss = Math.max(
        ...[50, 96, 99].map((p) => Math.abs(truthAt(sortedRaw, p) - truthAt(sortedTruth, p))),
      );
      expect(rawMiss).toBeGreaterThan(c.maxErrorUs);
    });
  }

  it('leaves proxies on nodes without reports raw, and counts those nodes', () => {
    const clocks = nodeClocks([{ node: 'a', atUs: 0, offsetUs: 5000, errorUs: 100 }]);
    const c = correctLatencies(
      [
        { node: 'a', atUs: 15_000 },
        { node: 'b', atUs: 15_000 },
        { node: null, atUs: 15_000 },
      ],
      0,
      clocks,
    );
    expect([...c.latencies]).toEqual([10_000, 15_000, 15_000]);
    expect(c).toMatchObject({
      maxErrorUs: 100,
      clockNodes: 1,
      uncorrectedNodes: 1,
      uncorrectedProxies: 2,
    });
  });
});

describe('nodeCutUs', () => {
  it('puts the cut where the corrected latency passes it, on the node clock', () => {
    // 130 ms behind: a proxy stamped at 870 ms applied at 1,000 ms (reference).
    const lag = new NodeClock([{ atUs: 0, offsetUs: -130_000, errorUs: 1000 }]);
    expect(nodeCutUs(lag, 0, 1_000_000)).toBe(870_000);
    // A cut between microseconds: stamped 870,000 is 1,000,000.0 <= 1,000,000.5; 870,001 is over.
    expect(nodeCutUs(lag, 0, 1_000_000.5)).toBe(870_000);
  });
  it('agrees with correctLatencies at every stamp around the cut, on a drifting clock', () => {
    // -10 ms at 0, -6 ms at 2 s: the offset moves 2 us per ms.
    const drift = new NodeClock([
      { atUs: 0, offsetUs: -10_000, errorUs: 200 },
      { atUs: 2_000_000, offsetUs: -6_000, errorUs: 400 },
    ]);
    const clocks = new Map([['c', drift]]);
    for (const thresholdUs of [0, 999_999.5, 1_000_000, 1_234_567.25]) {
      const cut = nodeCutUs(drift, 0, thresholdUs);
      const around = [cut - 1, cut, cut + 1, cut + 2].map((atUs) => ({ node: 'c', atUs }));
      const { latencies } = correctLatencies(around, 0, clocks);
      expect([...latencies].map((l) => l > thresholdUs)).toEqual([false, false, true, true]);
    }
  });
});
