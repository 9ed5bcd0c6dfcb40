// The load gate's parts below judgeLoadStep: a step's histograms from its stored rows, its
// name in a reason, and the rule's number at a step. HdrHistogram values here are worked from
// HdrHistogram's layout at 3 significant digits: 2,048 sub-buckets, so values below 2,048 are
// their own bucket, 2,048 to 4,095 come in pairs and 4,096 to 8,191 in fours (the bucket of
// 5,000 is 5,000 to 5,003; countedOf reads a bucket at its highest value).
import { parseLoadRule } from '@meshbench/gates';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { decodeHdr } from './hdr.ts';
import { countedOf, type LoadStepSide, loadValue, stepHistograms, stepName } from './load-gate.ts';
import { stepKey } from './load-steps.ts';

const hdr = (values: [number, number][]) => {
  const h = build({ numberOfSignificantValueDigits: 3 });
  for (const [v, n] of values) h.recordValueWithCount(v, n);
  return new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
};
const STEP = { mode: 'both', connections: 64, targetRps: 1000 };

describe('countedOf', () => {
  it('each non-empty bucket at its highest value, in ms', () => {
    const h = decodeHdr(
      hdr([
        [1000, 2],
        [5000, 1],
        [3000, 3],
      ]),
    );
    expect(countedOf(h, 1000)).toEqual({ values: [1, 3.001, 5.003], counts: [2, 3, 1] });
    expect(countedOf(h, 1)).toEqual({ values: [1000, 3001, 5003], counts: [2, 3, 1] });
  });
});

describe('stepHistograms', () => {
  it("a row of its own alone; a step's generators' rows added in their finest unit", () => {
    const rows = [
      { ...STEP, id: 1, generator: null, labels: {} },
      // Two generators of one step: one in ms (2 ms), one in µs (1 ms x4, 1.5 ms).
      { ...STEP, id: 2, generator: 'g1', labels: { hdrUnit: 'ms' } },
      { ...STEP, id: 3, generator: 'g2', labels: {} },
      // A generator of another step, and rows with no histogram stored.
      { ...STEP, targetRps: 2000, id: 4, generator: 'g1', labels: { hdrUnit: 'ms' } },
      { ...STEP, id: 5, generator: 'g3', labels: {} },
      { ...STEP, id: 6, generator: null, labels: {} },
    ];
    const hdrOf = new Map([
      [
        1,
        hdr([
          [1000, 2],
          [5000, 1],
        ]),
      ],
      [2, hdr([[2, 1]])],
      [
        3,
        hdr([
          [1000, 4],
          [1500, 1],
        ]),
      ],
      [4, hdr([[7, 2]])],
    ]);
    const { whole, merged } = stepHistograms(rows, hdrOf);
    expect([...whole]).toEqual([[1, { values: [1, 5.003], counts: [2, 1] }]]);
    // In µs (the finer unit), 1.5 ms stays 1.5; in ms it would not.
    expect(merged.get(stepKey(STEP))).toEqual({ values: [1, 1.5, 2], counts: [4, 1, 1] });
    expect(merged.get(stepKey({ ...STEP, targetRps: 2000 }))).toEqual({
      values: [7],
      counts: [2],
    });
    expect(merged.size).toBe(2);
  });
  it('a step whose first generator is the finer unit keeps it', () => {
    const rows = [
      { ...STEP, id: 1, generator: 'a', labels: { hdrUnit: 'ns' } },
      { ...STEP, id: 2, generator: 'b', labels: { hdrUnit: 'us' } },
    ];
    // 1,500 ns and 1 µs: in ns, 0.0015 ms and 0.001 ms.
    const { merged } = stepHistograms(
      rows,
      new Map([
        [1, hdr([[1500, 1]])],
        [2, hdr([[1, 3]])],
      ]),
    );
    expect(merged.get(stepKey(STEP))).toEqual({ values: [0.001, 0.0015], counts: [3, 1] });
  });
});

describe('stepName and loadValue', () => {
  it('names the mode, then the connections, rate and configuration it has', () => {
    expect(stepName({ mode: 'http', connections: null, targetRps: null })).toBe('http');
    expect(stepName({ mode: 'both', connections: 1500, targetRps: 2500.12345, config: 'v2' })).toBe(
      'both, 1,500 connections, 2,500.123 RPS target, config v2',
    );
    expect(stepName({ mode: 'grpc', connections: null, targetRps: 10, config: '' })).toBe(
      'grpc, 10 RPS target',
    );
  });
  const side = (over: Partial<LoadStepSide>): LoadStepSide => ({
    ...STEP,
    achievedRps: 990,
    requests: 400,
    errors: 3,
    percentiles: [{ p: 99, ms: 12 }],
    histogram: null,
    format: 'fortio',
    ...over,
  });
  it("reads a step's percentile, rate, or errors as a % of requests", () => {
    expect(loadValue(parseLoadRule('load.p99>+10%'), side({}))).toBe(12);
    expect(loadValue(parseLoadRule('load.p50>+10%'), side({}))).toBeNull();
    expect(loadValue(parseLoadRule('load.rps<-5%'), side({}))).toBe(990);
    // 3 errors of 400 requests: 0.75 %.
    expect(loadValue(parseLoadRule('load.errors>+1pp'), side({}))).toBe(0.75);
    for (const over of [{ errors: null }, { requests: null }, { requests: 0 }, { requests: -1 }])
      expect(loadValue(parseLoadRule('load.errors>+1pp'), side(over))).toBeNull();
  });
});
