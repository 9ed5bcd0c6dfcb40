import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { decodeHdr } from './hdr.ts';
import {
  buildSlots,
  buildStages,
  emptySlot,
  type GeneratorPoint,
  generatorShare,
  HdrMerger,
  keptAnswers,
  measuredSpan,
  mergeSteps,
  roundingOf,
  type Slot,
  type StoredInterval,
  sharedLabels,
  slotGrid,
  slotStart,
  stagesOf,
  stepKey,
  stepRate,
  typicalIntervalMs,
  unionMs,
  unitOf,
} from './load-steps.ts';

const point = (id: number, generator: string, stats: Partial<GeneratorPoint>): GeneratorPoint => ({
  id,
  generator,
  mode: 'http',
  connections: 8,
  targetRps: 100,
  achievedRps: 50,
  durationMs: 1000,
  requests: null,
  errors: 0,
  errorsByCode: {},
  minMs: null,
  meanMs: null,
  maxMs: null,
  stdDevMs: null,
  labels: {},
  startedAt: null,
  hdr: null,
  ...stats,
});

describe('mergeSteps: a step of several generators', () => {
  it("pools the generators' own min, mean, max and standard deviation", () => {
    // g1 timed 1 and 3 ms (mean 2, population sd 1); g2 timed 5 and 7 ms (mean 6, sd 1).
    // All four: mean 4, sd sqrt(((1-4)^2 + (3-4)^2 + (5-4)^2 + (7-4)^2) / 4) = sqrt(5).
    const [step] = mergeSteps(
      [
        point(1, 'g1', { requests: 2, minMs: 1, meanMs: 2, maxMs: 3, stdDevMs: 1 }),
        point(2, 'g2', { requests: 2, minMs: 5, meanMs: 6, maxMs: 7, stdDevMs: 1 }),
      ],
      [],
    );
    expect(step).toMatchObject({ requests: 4, minMs: 1, meanMs: 4, maxMs: 7 });
    expect(step?.stdDevMs).toBeCloseTo(Math.sqrt(5), 12);
  });

  it('weights each mean by its requests', () => {
    // 3 requests averaging 10 ms and 1 averaging 2 ms: (30 + 2) / 4 = 8 ms.
    const [step] = mergeSteps(
      [
        point(1, 'g1', { requests: 3, minMs: 9, meanMs: 10, maxMs: 11, stdDevMs: null }),
        point(2, 'g2', { requests: 1, minMs: 2, meanMs: 2, maxMs: 2, stdDevMs: null }),
      ],
      [],
    );
    expect(step).toMatchObject({ meanMs: 8, minMs: 2, maxMs: 11, stdDevMs: null });
  });

  it("falls back to the merged histogram's where a generator lacks its own", () => {
    const [step] = mergeSteps(
      [
        point(1, 'g1', { requests: 2, minMs: 1, meanMs: 2, maxMs: 3, stdDevMs: 1 }),
        point(2, 'g2', { requests: 2 }),
      ],
      [],
    );
    // No histogram either: nothing to state.
    expect(step).toMatchObject({ minMs: null, meanMs: null, maxMs: null });
  });
});

describe('stepRate: points taken as one load step', () => {
  const at = (s: number) => Date.UTC(2026, 10, 26, 12, 0, s);
  it('adds generators that ran side by side, and not scenarios that ran one after another', () => {
    // Side by side over the same 10 s: 1000 + 500 requests = 150 rps, the sum of 100 and 50.
    const side = [
      point(1, 'g1', { requests: 1000, achievedRps: 100, startedAtMs: at(0), durationMs: 10_000 }),
      point(2, 'g2', { requests: 500, achievedRps: 50, startedAtMs: at(0), durationMs: 10_000 }),
    ];
    expect(stepRate(side)).toBe(150);
    // One after another: 1000 requests in [0, 10 s], 500 in [20 s, 30 s]: 1500 / 20 s = 75
    // (adding the rates says 150).
    const after = [
      side[0] as GeneratorPoint,
      { ...(side[1] as GeneratorPoint), startedAtMs: at(20) },
    ];
    expect(stepRate(after)).toBe(75);
    // Overlapping by 5 s: [0, 10 s] and [5 s, 15 s] cover 15 s: 1500 / 15 = 100.
    expect(
      stepRate([side[0] as GeneratorPoint, { ...(side[1] as GeneratorPoint), startedAtMs: at(5) }]),
    ).toBe(100);
  });

  it("falls back to the sum of the points' rates when a span or a count is unknown", () => {
    const known = point(1, 'g1', {
      requests: 1000,
      achievedRps: 100,
      startedAtMs: at(0),
      durationMs: 10_000,
    });
    expect(stepRate([known, point(2, 'g2', { requests: 500, achievedRps: 50 })])).toBe(150);
    expect(
      stepRate([
        known,
        point(2, 'g2', { achievedRps: 50, startedAtMs: at(20), durationMs: 10_000 }),
      ]),
    ).toBe(150);
  });

  it('takes the interval spans of points without a measured one', () => {
    const p = point(7, 'g1', { requests: 30, achievedRps: 99 });
    expect(stepRate([p], new Map([[7, { fromMs: at(0), toMs: at(3) }]]))).toBe(10);
  });
});

describe('unionMs', () => {
  it('counts overlapping and touching spans once, gaps not at all', () => {
    expect(unionMs([])).toBe(0);
    expect(
      unionMs([
        { fromMs: 0, toMs: 10 },
        { fromMs: 10, toMs: 15 },
        { fromMs: 20, toMs: 21 },
        { fromMs: 2, toMs: 3 },
      ]),
    ).toBe(16);
  });
});

describe('generatorShare: short of its share of the target, or CPU-saturated', () => {
  // 4 generators at 400 rps: a share of 100 rps each; short below 95 % of it (95 rps).
  const share = (
    achievedRps: number | null,
    labels: Record<string, string> = {},
    targetRps: number | null = 400,
  ) => generatorShare({ generator: 'g1', achievedRps, targetRps, labels }, 4);

  it('is short below 95 % of its share, not at it', () => {
    expect(share(94.9)).toEqual({
      name: 'g1',
      achievedRps: 94.9,
      shortfall: true,
      saturated: false,
    });
    expect(share(95).shortfall).toBe(false);
    expect(share(120).shortfall).toBe(false);
  });

  it('is never short without a target, a positive target or an achieved rate', () => {
    expect(share(1, {}, null).shortfall).toBe(false);
    expect(share(-1, {}, 0).shortfall).toBe(false);
    expect(share(null).shortfall).toBe(false);
  });

  it('is saturated from 95 % CPU, only when the CPU is stated as a number', () => {
    expect(share(100, { generatorCpu: '0.95' }).saturated).toBe(true);
    expect(share(100, { generatorCpu: '0.949' }).saturated).toBe(false);
    expect(share(100, { generatorCpu: 'high' }).saturated).toBe(false);
    expect(share(100, { generatorCpu: 'Infinity' }).saturated).toBe(false);
    expect(share(100).saturated).toBe(false);
  });

  it('names a point without a generator by the empty name', () => {
    expect(
      generatorShare({ generator: null, achievedRps: 1, targetRps: null, labels: {} }, 1).name,
    ).toBe('');
  });
});

describe('step labels, keys, units and spans', () => {
  it("keeps the labels every point carries alike, never a generator's CPU", () => {
    expect(sharedLabels([])).toEqual({});
    expect(
      sharedLabels([
        { labels: { config: 'a', zone: 'x', generatorCpu: '0.5' } },
        { labels: { config: 'a', zone: 'y', generatorCpu: '0.5' } },
      ]),
    ).toEqual({ config: 'a' });
    expect(sharedLabels([{ labels: { config: 'a', generatorCpu: '0.5' } }])).toEqual({
      config: 'a',
    });
  });

  it('keys a step by mode, connections, target and configuration (none and null alike)', () => {
    const s = { mode: 'http', connections: 8, targetRps: 100 };
    expect(stepKey(s)).toBe(stepKey({ ...s, config: null }));
    expect(stepKey(s)).not.toBe(stepKey({ ...s, config: 'a' }));
    expect(stepKey(s)).not.toBe(stepKey({ ...s, connections: 16 }));
    expect(stepKey(s)).not.toBe(stepKey({ ...s, targetRps: 200 }));
    expect(stepKey(s)).not.toBe(stepKey({ ...s, mode: 'grpc' }));
  });

  it('reads the histogram unit label (us unless ms, us or ns) and the rounding label', () => {
    expect(unitOf({ hdrUnit: 'ns' })).toBe('ns');
    expect(unitOf({ hdrUnit: 'ms' })).toBe('ms');
    expect(unitOf({ hdrUnit: 's' })).toBe('us');
    expect(unitOf({})).toBe('us');
    expect(roundingOf({ hdrRoundingMs: '0.5' })).toBe(0.5);
    expect(roundingOf({ hdrRoundingMs: '-1' })).toBe(0);
    expect(roundingOf({ hdrRoundingMs: 'x' })).toBe(0);
    expect(roundingOf({})).toBe(0);
  });

  it('spans a point from its start over a positive duration', () => {
    expect(measuredSpan({ startedAtMs: 1000, durationMs: 500 })).toEqual({
      fromMs: 1000,
      toMs: 1500,
    });
    expect(measuredSpan({ startedAtMs: 0, durationMs: 500 })).toEqual({ fromMs: 0, toMs: 500 });
    expect(measuredSpan({ startedAtMs: null, durationMs: 500 })).toBeNull();
    expect(measuredSpan({ startedAtMs: undefined, durationMs: 500 })).toBeNull();
    expect(measuredSpan({ startedAtMs: 1000, durationMs: null })).toBeNull();
    expect(measuredSpan({ startedAtMs: 1000, durationMs: 0 })).toBeNull();
  });
});

/** A histogram as hdr-histogram-js records and encodes it (values in its unit). */
function hdrOf(values: number[]): Uint8Array {
  const h = build({ numberOfSignificantValueDigits: 3 });
  for (const v of values) h.recordValue(v);
  return new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
}

describe('slots: lengths, starts and kept percentiles', () => {
  it('takes the most common interval length, the shortest of a tie, in whole ms of at least 1', () => {
    expect(typicalIntervalMs([])).toBe(0);
    expect(
      typicalIntervalMs([
        { durationMs: 2000, n: 3 },
        { durationMs: 1000, n: 3 },
      ]),
    ).toBe(1000);
    expect(
      typicalIntervalMs([
        { durationMs: 999.6, n: 1 },
        { durationMs: 2000, n: 1 },
        { durationMs: 1000.4, n: 1 },
      ]),
    ).toBe(1000);
    expect(typicalIntervalMs([{ durationMs: 0.2, n: 5 }])).toBe(1);
    expect(
      typicalIntervalMs([
        { durationMs: 500, n: 1 },
        { durationMs: 5000, n: 2 },
      ]),
    ).toBe(5000);
  });

  it('rounds a start to the nearest multiple of the interval', () => {
    expect(slotStart(1499, 1000)).toBe(1000);
    expect(slotStart(1500, 1000)).toBe(2000);
    expect(slotStart(-1400, 1000)).toBe(-1000);
  });

  it('answers from kept percentiles only when each one asked is kept', () => {
    expect(keptAnswers([50, 99, 99.9, 90])).toBe(true);
    expect(keptAnswers([50, 95])).toBe(false);
    expect(keptAnswers([])).toBe(true);
  });
});

describe('buildStages: intervals into slots, points into stages', () => {
  const us = { hdrUnit: 'us' };
  const p1 = point(1, 'g1', { requests: 30, errors: 1, labels: us, hdr: hdrOf([2000]) });
  const p2 = point(2, 'g2', { requests: 20, errors: null, labels: us });
  const p3 = point(3, 'g1', { targetRps: 200, requests: 10, errors: 0, labels: us });
  const interval = (
    resultId: number,
    startMs: number,
    valuesUs: number[],
    errors: number | null,
    durationMs = 1000,
  ): StoredInterval => ({
    resultId,
    startMs,
    durationMs,
    count: valuesUs.length,
    errors,
    hdr: hdrOf(valuesUs),
  });

  it('is empty without intervals', () => {
    expect(buildStages([p1], [], [50])).toEqual({ intervalMs: 0, series: [], stages: [] });
  });

  it('merges intervals by rounded start and steps by key, in time order', () => {
    const stages = buildStages(
      [p3, p1, p2],
      [
        interval(1, 0, [1000, 2000, 3000], 1),
        interval(2, 10, [4000, 5000], null),
        interval(1, 1000, [1500], 0),
        interval(3, 5000, [7000], 0, 2000),
        // A point not asked for: left out.
        interval(99, 0, [9000], 5),
      ],
      [50],
    );
    // Lengths 1000 (3 times) and 2000 (once): slots of 1 s; 10 ms rounds to 0.
    expect(stages.intervalMs).toBe(1000);
    const series = stages.series.map(({ percentiles, ...s }) => s);
    expect(series).toEqual([
      {
        startMs: 0,
        durationMs: 1000,
        requests: 5,
        errors: 1,
        rps: 5,
        errorRate: 0.2,
        generators: 2,
      },
      {
        startMs: 1000,
        durationMs: 1000,
        requests: 1,
        errors: 0,
        rps: 1,
        errorRate: 0,
        generators: 1,
      },
      {
        startMs: 5000,
        durationMs: 2000,
        requests: 1,
        errors: 0,
        rps: 0.5,
        errorRate: 0,
        generators: 1,
      },
    ]);
    // Slot 0 holds 1, 2, 3, 4 and 5 ms: the nearest-rank median is 3 ms.
    expect(stages.series[0]?.percentiles[0]?.p).toBe(50);
    expect(stages.series[0]?.percentiles[0]?.ms).toBeCloseTo(3, 2);
    // Step A (p1, p2): 0 s to 2 s, 50 requests in the 2 s either ran; 1 error of 50.
    // Step B (p3): 5 s to 7 s, 10 requests in 2 s.
    const [a, b] = stages.stages;
    expect(stages.stages).toHaveLength(2);
    expect(a).toMatchObject({
      targetRps: 100,
      fromMs: 0,
      toMs: 2000,
      achievedRps: 25,
      requests: 50,
      errors: 1,
      errorRate: 0.02,
    });
    expect(a?.percentiles[0]?.ms).toBeCloseTo(2, 2);
    expect(a?.generators.map((g) => g.name)).toEqual(['g1', 'g2']);
    expect(b).toMatchObject({
      targetRps: 200,
      fromMs: 5000,
      toMs: 7000,
      achievedRps: 5,
      requests: 10,
      errors: 0,
      errorRate: 0,
      percentiles: [],
    });
  });
});

describe('mergeSteps: counts, codes, times and histograms of a step', () => {
  it('adds codes and errors, takes the earliest start and the longest duration', () => {
    const [step] = mergeSteps(
      [
        point(1, 'g1', {
          errors: 2,
          errorsByCode: { '503': 2 },
          startedAt: '2026-11-26T12:00:05Z',
          durationMs: 900,
        }),
        point(2, 'g2', {
          errors: null,
          errorsByCode: { '503': 1, '429': 4 },
          startedAt: null,
          durationMs: null,
        }),
        point(3, 'g3', { errors: 3, startedAt: '2026-11-26T12:00:01Z', durationMs: 1100 }),
      ],
      [],
    );
    expect(step).toMatchObject({
      errors: 5,
      errorsByCode: { '503': 3, '429': 4 },
      startedAt: '2026-11-26T12:00:01Z',
      durationMs: 1100,
    });
    expect(step?.generators.map((g) => g.name)).toEqual(['g1', 'g2', 'g3']);
    const [none] = mergeSteps([point(1, 'g1', { errors: null, durationMs: null })], []);
    expect(none).toMatchObject({ errors: null, durationMs: null, startedAt: null, requests: null });
  });

  it.each([
    ['minMs', { minMs: null }],
    ['meanMs', { meanMs: null }],
    ['maxMs', { maxMs: null }],
    ['requests', { requests: 0 }],
  ])('uses the merged histogram when a point lacks its own %s', (_, lack) => {
    // g1 recorded 1, 2 and 3 ms (in us); g2 4 ms (in ms). Own stats say 100 ms, which only
    // count when every point has them.
    const own = { requests: 3, minMs: 100, meanMs: 100, maxMs: 100, stdDevMs: 0 };
    const [step] = mergeSteps(
      [
        point(1, 'g1', { ...own, labels: { hdrUnit: 'us' }, hdr: hdrOf([1000, 2000, 3000]) }),
        point(2, 'g2', { ...own, ...lack, labels: { hdrUnit: 'ms' }, hdr: hdrOf([4]) }),
      ],
      [50, 100],
    );
    expect(step?.minMs).toBeCloseTo(1, 2);
    expect(step?.maxMs).toBeCloseTo(4, 2);
    expect(step?.meanMs).toBeCloseTo(2.5, 2);
    // Nearest rank of 1, 2, 3, 4 ms: P50 is 2, P100 is 4; merged in us, the finer unit.
    expect(step?.percentiles.map((q) => q.p)).toEqual([50, 100]);
    expect(step?.percentiles[0]?.ms).toBeCloseTo(2, 2);
    expect(step?.percentiles[1]?.ms).toBeCloseTo(4, 2);
  });
});

describe('HdrMerger', () => {
  it('has no range, stats or percentiles before anything is added', () => {
    const m = new HdrMerger('us');
    expect(m.range()).toEqual({ min: null, max: null });
    expect(m.stats()).toEqual({ min: null, max: null, mean: null, stdDev: null });
    expect(m.percentiles([50])).toEqual([]);
    expect(m.rounding).toBe(0);
  });

  it('gives the range and stats in ms, and keeps the largest rounding', () => {
    const m = new HdrMerger('us');
    m.add(decodeHdr(hdrOf([1000, 3000])), 'us', 0.5);
    m.add(decodeHdr(hdrOf([5])), 'ms', 0.25);
    const r = m.range();
    expect(r.min).toBeCloseTo(1, 2);
    expect(r.max).toBeCloseTo(5, 2);
    expect(r.min as number).toBeLessThanOrEqual(1);
    expect(r.max as number).toBeGreaterThanOrEqual(5);
    expect(m.stats().mean).toBeCloseTo(3, 2);
    expect(m.rounding).toBe(0.5);
    const [v] = m.percentileValues([100]);
    expect(v?.p).toBe(100);
    expect(v?.ms).toBeCloseTo(5, 2);
  });
});

describe('edges the mutants found untested', () => {
  it('unions spans given in any order', () => {
    const spans = [
      { fromMs: 20, toMs: 21 },
      { fromMs: 2, toMs: 3 },
      { fromMs: 10, toMs: 15 },
      { fromMs: 0, toMs: 10 },
    ];
    expect(unionMs(spans)).toBe(16);
    expect(unionMs([...spans].reverse())).toBe(16);
  });

  it("falls back to the points' rates when the spans they ran cover no time", () => {
    const p = point(7, 'g1', { requests: 30, achievedRps: 99 });
    expect(stepRate([p], new Map([[7, { fromMs: 5000, toMs: 5000 }]]))).toBe(99);
  });

  it('takes the shortest of equally common lengths, whichever comes first', () => {
    const tie = [
      { durationMs: 1000, n: 3 },
      { durationMs: 2000, n: 3 },
    ];
    expect(typicalIntervalMs(tie)).toBe(1000);
    expect(typicalIntervalMs([...tie].reverse())).toBe(1000);
  });

  it("merges on the finest of the points' units", () => {
    const labels = (hdrUnit: string) => ({ labels: { hdrUnit } });
    expect(slotGrid([], [labels('us'), labels('ns'), labels('ms')]).unit).toBe('ns');
    expect(slotGrid([], [labels('ms'), labels('us'), labels('ms')]).unit).toBe('us');
    expect(slotGrid([], []).unit).toBe('ms');
  });

  it('keeps sub-millisecond detail of a step recorded in us (merged in us, not ms)', () => {
    const us = { hdrUnit: 'us' };
    const [step] = mergeSteps(
      [
        point(1, 'g1', { labels: us, hdr: hdrOf([1234, 1250]) }),
        point(2, 'g2', { labels: us, hdr: hdrOf([1240]) }),
      ],
      [100],
    );
    expect(step?.percentiles[0]?.ms).toBeCloseTo(1.25, 2);
  });

  it("has no pooled standard deviation when one generator's is unknown", () => {
    const [step] = mergeSteps(
      [
        point(1, 'g1', { requests: 2, minMs: 1, meanMs: 2, maxMs: 3, stdDevMs: 1 }),
        point(2, 'g2', { requests: 2, minMs: 5, meanMs: 6, maxMs: 7, stdDevMs: null }),
      ],
      [],
    );
    expect(step).toMatchObject({ meanMs: 4, minMs: 1, maxMs: 7, stdDevMs: null });
  });

  it('has no range or stats for a merged histogram that counts nothing', () => {
    const m = new HdrMerger('us');
    m.add(decodeHdr(hdrOf([])), 'us');
    expect(m.range()).toEqual({ min: null, max: null });
    expect(m.stats()).toEqual({ min: null, max: null, mean: null, stdDev: null });
  });

  it('reads the range from the first and last bucket that count, past empty ones', () => {
    const h = decodeHdr(hdrOf([2000, 3000]));
    const padded = { ...h, counts: Float64Array.from([...h.counts, 0, 0, 0, 0]) };
    const r = HdrMerger.of('us', padded, 0).range();
    expect(r.min).toBeCloseTo(2, 2);
    expect(r.max).toBeCloseTo(3, 2);
  });

  it('builds slots in time order from intervals in any order', () => {
    const iv = (startMs: number): StoredInterval => ({
      resultId: 1,
      startMs,
      durationMs: 1000,
      count: 1,
      errors: 0,
      hdr: hdrOf([1000]),
    });
    const { slots } = buildSlots([{ id: 1, labels: {} }], [iv(3000), iv(0), iv(2000), iv(1000)]);
    expect(slots.map((s) => s.startMs)).toEqual([0, 1000, 2000, 3000]);
  });

  it('reads kept percentiles without a histogram, and none when none were kept', () => {
    const grid = { intervalMs: 1000, unit: 'us' as const };
    const kept = {
      ...emptySlot(0, 'us'),
      durationMs: 1000,
      requests: 10,
      errors: 0,
      generators: 1,
      kept: [
        { p: 50, ms: 2, accuracy: { exact: false as const } },
        { p: 99, ms: 7, accuracy: { exact: false as const } },
      ],
    } as Slot;
    const none = { ...kept, startMs: 1000, kept: [] } as Slot;
    const [a, b] = stagesOf([], new Map(), grid, [kept, none], [99, 50]).series;
    expect(a?.percentiles.map((q) => [q.p, q.ms])).toEqual([
      [99, 7],
      [50, 2],
    ]);
    expect(b?.percentiles).toEqual([]);
  });

  it('gives a slot of no length no rate, and an error rate only of requests with errors counted', () => {
    const grid = { intervalMs: 1000, unit: 'us' as const };
    const slot = (over: Partial<Slot>) => ({ ...emptySlot(0, 'us'), ...over }) as Slot;
    const series = stagesOf(
      [],
      new Map(),
      grid,
      [
        slot({ durationMs: 0, requests: 5, errors: 1 }),
        slot({ durationMs: 1000, requests: 0, errors: 0 }),
        slot({ durationMs: 1000, requests: 4, errors: null }),
        slot({ durationMs: 500, requests: 4, errors: 1 }),
      ],
      [],
    ).series.map((s) => [s.rps, s.errorRate]);
    expect(series).toEqual([
      [0, 0.2],
      [0, null],
      [4, null],
      [8, 0.25],
    ]);
  });

  it('makes stages only of points with intervals; a stage without requests has no error rate', () => {
    const stages = buildStages(
      [
        point(1, 'g1', { requests: 0, errors: 0 }),
        point(2, 'g1', { targetRps: 300, requests: 8, errors: null }),
        point(3, 'g1', { targetRps: 900, requests: 5, errors: 1 }),
      ],
      [
        { resultId: 1, startMs: 0, durationMs: 1000, count: 0, errors: 0, hdr: hdrOf([]) },
        { resultId: 2, startMs: 1000, durationMs: 1000, count: 8, errors: null, hdr: hdrOf([5]) },
      ],
      [],
    ).stages;
    expect(stages.map((s) => [s.targetRps, s.requests, s.errorRate])).toEqual([
      [100, 0, null],
      [300, 8, null],
    ]);
  });
});
