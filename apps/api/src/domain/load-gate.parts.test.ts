// The load gate's parts below judgeLoadStep: a step's histograms from its stored rows, its
// name in a reason, and the rule's number at a step. HdrHistogram values here are worked from
// HdrHistogram's layout at 3 significant digits: 2,048 sub-buckets, so values below 2,048 are
// their own bucket, 2,048 to 4,095 come in pairs and 4,096 to 8,191 in fours (the bucket of
// 5,000 is 5,000 to 5,003; countedOf reads a bucket at its highest value).
import { parseLoadRule } from '@meshbench/gates';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { decodeHdr } from './hdr.ts';
import {
  countedOf,
  evaluateLoadRule,
  judgeLoadStep,
  type LoadStepSide,
  loadValue,
  stepHistograms,
  stepName,
} from './load-gate.ts';
import { stepKey } from './load-steps.ts';

const hdr = (values: [number, number][]) => {
  const h = build({ numberOfSignificantValueDigits: 3 });
  for (const [v, n] of values) h.recordValueWithCount(v, n);
  return new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
};
const STEP = { mode: 'both', connections: 64, targetRps: 1000 };
type Row = typeof STEP & { id: number; generator: string | null; labels: Record<string, string> };

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
    const rows: Row[] = [
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
    const rows: Row[] = [
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

const fortio = (p99: number | null, over: Partial<LoadStepSide> = {}): LoadStepSide => ({
  ...STEP,
  achievedRps: 1000,
  requests: 1000,
  errors: 0,
  percentiles: p99 === null ? [] : [{ p: 99, ms: p99 }],
  histogram: null,
  format: 'fortio',
  ...over,
});
const judge = (
  rule: string,
  current: LoadStepSide | null,
  baseline: LoadStepSide | null,
  notComparable?: string,
) =>
  judgeLoadStep({
    rule: parseLoadRule(rule),
    step: { ...STEP, config: 'v2' },
    current,
    baseline,
    notComparable,
    noiseFloorMs: null,
  });

describe('judgeLoadStep: the steps it cannot or does not test', () => {
  it('says which side lacks the step or its number', () => {
    expect(judge('load.p99>+10%', null, fortio(8))).toEqual({
      ...STEP,
      config: 'v2',
      verdict: 'not-comparable',
      failed: false,
      reason: 'this step is only in the baseline',
      current: null,
      baselineValue: 8,
      bound: 8.8,
      tested: false,
    });
    expect(judge('load.p99>+10%', fortio(8), null)).toMatchObject({
      verdict: 'not-comparable',
      reason: 'this step is not in the baseline',
      current: 8,
      bound: null,
    });
    expect(judge('load.p99>+10%', fortio(9), fortio(8), 'saturated')).toMatchObject({
      verdict: 'not-comparable',
      failed: false,
      reason: 'saturated',
    });
    expect(judge('load.p99>+10%', fortio(null), fortio(8)).reason).toBe(
      'no load.p99 at this step here',
    );
    expect(judge('load.p99>+10%', fortio(8), fortio(null)).reason).toBe(
      'no load.p99 in the baseline',
    );
  });
  it('an absolute bound needs no baseline and is not tested', () => {
    expect(judge('load.p99>5ms', fortio(12), null)).toMatchObject({
      verdict: 'regressed',
      failed: true,
      bound: 5,
      reason: '12 ms > 5 ms; not significance-tested: an absolute bound, no baseline',
    });
    // Under an absolute bound nothing is "improved": there is no baseline to be better than.
    expect(judge('load.p99>5ms', fortio(1), null)).toMatchObject({
      verdict: 'no-significant-change',
      failed: false,
      reason: '1 ms not > 5 ms; not significance-tested: an absolute bound, no baseline',
    });
  });
  it('rates and error rates are held by the fixed rule, in their own units', () => {
    const rps = (r: number) => fortio(8, { achievedRps: r });
    expect(judge('load.rps<-5%', rps(940), rps(1000))).toMatchObject({
      verdict: 'regressed',
      reason:
        '940 RPS < 950 RPS; not significance-tested: a rate, not a percentile of observations',
    });
    // The mirror of -5 % is +5 %: 1,050 RPS. Above it is improved, at or below it is not.
    expect(judge('load.rps<-5%', rps(1060), rps(1000)).verdict).toBe('improved');
    expect(judge('load.rps<-5%', rps(1050), rps(1000)).verdict).toBe('no-significant-change');
    expect(judge('load.rps<-5%', rps(1040), rps(1000))).toMatchObject({
      verdict: 'no-significant-change',
      reason:
        '1,040 RPS not < 950 RPS; not significance-tested: a rate, not a percentile of observations',
    });
    const err = (e: number) => fortio(8, { errors: e });
    // 20 of 1,000 requests: 2 %; baseline 0.5 %, bound 1.5 %.
    expect(judge('load.errors>+1pp', err(20), err(5)).reason).toBe(
      '2 % > 1.5 %; not significance-tested: a rate, not a percentile of observations',
    );
    // The mirror of +1 point below 0.5 %: -0.5 %, which no error rate is below.
    expect(judge('load.errors>+1pp', err(0), err(5)).verdict).toBe('no-significant-change');
  });
  it('latency: the mirror bound decides improved; a zero margin never is', () => {
    // +10 % of 8 is 8.8; its mirror -10 % is 7.2.
    expect(judge('load.p99>+10%', fortio(7.1), fortio(8)).verdict).toBe('improved');
    expect(judge('load.p99>+10%', fortio(7.2), fortio(8)).verdict).toBe('no-significant-change');
    expect(judge('load.p99>+0%', fortio(7), fortio(8)).verdict).toBe('no-significant-change');
    expect(judge('load.p99>+10%', fortio(8.8), fortio(8)).verdict).toBe('no-significant-change');
    expect(judge('load.p99>+10%', fortio(8.9), fortio(8)).verdict).toBe('regressed');
  });
  it('names why a latency rule is not tested: a fall, or which side has no HdrHistogram', () => {
    expect(judge('load.p99<-10%', fortio(7), fortio(8)).reason).toBe(
      '7 ms < 7.2 ms; not significance-tested: a rule on a fall in latency',
    );
    expect(judge('load.p99<=-10%', fortio(8), fortio(8)).reason).toMatch(
      /: a rule on a fall in latency$/,
    );
    const withHdr = (p99: number) => fortio(p99, { histogram: { values: [p99], counts: [1] } });
    expect(judge('load.p99>+10%', withHdr(9), fortio(8)).reason).toBe(
      '9 ms > 8.8 ms; not significance-tested: no HdrHistogram in the baseline (fortio)',
    );
    expect(judge('load.p99>+10%', fortio(9), withHdr(8)).reason).toMatch(
      /: no HdrHistogram here \(fortio\)$/,
    );
    expect(
      judge('load.p99>+10%', fortio(9, { format: 'wrk' }), fortio(8, { format: 'oha' })).reason,
    ).toMatch(/: no HdrHistogram here \(wrk\) or in the baseline \(oha\)$/);
    const empty = (p99: number) => fortio(p99, { histogram: { values: [], counts: [] } });
    expect(judge('load.p99>+10%', empty(9), empty(8))).toMatchObject({
      verdict: 'not-comparable',
      reason: 'an empty HdrHistogram',
    });
  });
});

describe('evaluateLoadRule: steps, the worst, and its sentence', () => {
  const at = (targetRps: number, p99: number) => fortio(p99, { targetRps });
  const rule = (text: string) => parseLoadRule(text);
  it('judges a step given twice once; one step is "1 of 1 step"', () => {
    const v = evaluateLoadRule({
      rule: rule('load.p99>+10%'),
      current: [at(100, 5), at(100, 50)],
      baseline: [at(100, 5)],
      notComparable: () => undefined,
      noiseFloorMs: () => null,
    });
    expect(v.steps).toHaveLength(1);
    expect(v).toMatchObject({
      verdict: 'no-significant-change',
      failed: false,
      current: 5,
      baselineValue: 5,
      bound: 5.5,
    });
    expect(v.reason).toMatch(/^no significant change at 1 of 1 step; at both, 64 connections/);
  });
  it('takes the worst: not comparable over no change over improved', () => {
    const v = evaluateLoadRule({
      rule: rule('load.p99>+10%'),
      current: [at(100, 3), at(200, 5), at(300, 5)],
      baseline: [at(100, 5), at(200, 5), at(300, 5)],
      notComparable: (c) => (c.targetRps === 300 ? 'short of its rate' : undefined),
      noiseFloorMs: () => null,
    });
    expect(v.steps.map((s) => s.verdict)).toEqual([
      'improved',
      'no-significant-change',
      'not-comparable',
    ]);
    expect(v).toMatchObject({ verdict: 'not-comparable', failed: false });
    expect(v.reason).toBe(
      'not comparable at 1 of 3 steps; at both, 64 connections, 300 RPS target: short of its rate',
    );
    const better = evaluateLoadRule({
      rule: rule('load.p99>+10%'),
      current: [at(100, 3), at(200, 5)],
      baseline: [at(100, 5), at(200, 5)],
      notComparable: () => undefined,
      noiseFloorMs: () => null,
    });
    expect(better.verdict).toBe('no-significant-change');
    expect(better.reason).toMatch(
      /^no significant change at 1 of 2 steps; at both, 64 connections, 200/,
    );
    const improved = evaluateLoadRule({
      rule: rule('load.p99>+10%'),
      current: [at(100, 3)],
      baseline: [at(100, 5)],
      notComparable: () => undefined,
      noiseFloorMs: () => null,
    });
    expect(improved.reason).toMatch(/^improved at 1 of 1 step; /);
  });
  it("an absolute rule: no baseline needed, the baseline's own steps not listed", () => {
    const asked: (LoadStepSide | null)[] = [];
    const v = evaluateLoadRule({
      rule: rule('load.p99>10ms'),
      current: [at(100, 12)],
      baseline: [at(100, 5), at(200, 5)],
      notComparable: (_c, b) => {
        asked.push(b);
        return undefined;
      },
      noiseFloorMs: () => null,
    });
    expect(v.steps).toHaveLength(1);
    expect(v).toMatchObject({ verdict: 'regressed', failed: true, baselineValue: null, bound: 10 });
    // Asked about the step, with no baseline step: the rule has none.
    expect(asked).toEqual([null]);
    expect(
      evaluateLoadRule({
        rule: rule('load.p99>10ms'),
        current: [at(100, 2)],
        baseline: null,
        notComparable: () => undefined,
        noiseFloorMs: () => null,
      }).verdict,
    ).toBe('no-significant-change');
  });
  it('a relative rule does not ask about a step the baseline lacks', () => {
    const asked: number[] = [];
    evaluateLoadRule({
      rule: rule('load.p99>+10%'),
      current: [at(100, 5), at(200, 5)],
      baseline: [at(100, 5)],
      notComparable: (c) => {
        asked.push(c.targetRps as number);
        return undefined;
      },
      noiseFloorMs: () => null,
    });
    expect(asked).toEqual([100]);
    expect(
      evaluateLoadRule({
        rule: rule('load.p99>+10%'),
        current: [at(100, 5)],
        baseline: [],
        notComparable: () => undefined,
        noiseFloorMs: () => null,
      }),
    ).toEqual({
      verdict: 'not-comparable',
      failed: true,
      reason: 'no baseline with load steps to compare with',
      current: null,
      baselineValue: null,
      bound: null,
      steps: [],
    });
  });
});
