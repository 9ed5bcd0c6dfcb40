import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { changePoints } from './change-points.ts';

interface Case {
  name: string;
  options: { windowLen: number; maxPValue: number; minMagnitude: number };
  series: number[];
  points: {
    index: number;
    pValue: number;
    meanBefore: number;
    meanAfter: number;
    magnitude: number;
    stdBefore: number;
    stdAfter: number;
    forwardChange: number;
    qhat: number;
  }[];
  weak: number[];
}

// Written by scripts/otava-reference.py from Apache Otava's own code (1ceb153).
const reference = JSON.parse(
  readFileSync(new URL('./fixtures/otava-change-points.json', import.meta.url), 'utf8'),
) as { cases: Case[] };

describe('changePoints agrees with Apache Otava', () => {
  it.each(reference.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const { points, weak } = changePoints(c.series, c.options);
    expect(weak.map((p) => p.index)).toEqual(c.weak);
    expect(points.map((p) => p.index)).toEqual(c.points.map((p) => p.index));
    for (const [i, want] of c.points.entries()) {
      const got = points[i];
      expect(got?.meanBefore).toBeCloseTo(want.meanBefore, 9);
      expect(got?.meanAfter).toBeCloseTo(want.meanAfter, 9);
      expect(got?.magnitude).toBeCloseTo(want.magnitude, 9);
      expect(got?.stdBefore).toBeCloseTo(want.stdBefore, 9);
      expect(got?.stdAfter).toBeCloseTo(want.stdAfter, 9);
      expect(got?.forwardChange).toBeCloseTo(want.forwardChange, 9);
      // Otava's qhat comes from its vectorised sums, ours from running ones: equal up to rounding.
      expect(Math.abs((got?.qhat as number) - want.qhat)).toBeLessThan(
        1e-9 * Math.max(1, Math.abs(want.qhat)),
      );
      // p-values span many decades: compared relatively (SciPy's incomplete beta vs ours).
      if (want.pValue < 1e-300) expect(got?.pValue).toBeLessThan(1e-290);
      else expect(Math.abs((got?.pValue as number) / want.pValue - 1)).toBeLessThan(1e-6);
    }
  });

  it('finds the regressions in the long series where they were planted', () => {
    const c = reference.cases.find((x) => x.name === '1,000 runs') as Case;
    // The generator planted steps at 250, 550 and 750.
    expect(changePoints(c.series, c.options).points.map((p) => p.index)).toEqual([250, 550, 750]);
  });

  it('with a minimum segment of 3 runs, a single spike is no change point; steps still are', () => {
    const spike = reference.cases.find((x) => x.name === 'one spike') as Case;
    // Otava reports the spike at 70 as two change points (70 and 71), apache/otava#150.
    expect(spike.points.map((p) => p.index)).toEqual([70, 71]);
    expect(changePoints(spike.series, { ...spike.options, minSegment: 3 }).points).toEqual([]);
    const levels = reference.cases.find((x) => x.name === 'four levels with noise') as Case;
    // The generator planted levels changing at 60, 110 and 160; Otava finds 60, 107, 160.
    expect(
      changePoints(levels.series, { ...levels.options, minSegment: 3 }).points.map((p) => p.index),
    ).toEqual([60, 107, 160]);
  });

  it('a two-run blip is dropped with a minimum segment of 3 but a three-run level is kept', () => {
    const base = Array.from({ length: 60 }, (_, i) => 100 + ((i * 7) % 5) * 0.2);
    const blip = [...base];
    blip[30] = 140;
    blip[31] = 141;
    expect(changePoints(blip, { minSegment: 3 }).points).toEqual([]);
    const step = base.map((v, i) => (i >= 30 ? v + 40 : v));
    expect(changePoints(step, { minSegment: 3 }).points.map((p) => p.index)).toEqual([30]);
  });

  it('a segment of exactly the minimum is kept; one run shorter is dropped', () => {
    const base = Array.from({ length: 60 }, (_, i) => 100 + ((i * 7) % 5) * 0.2);
    const lastThree = base.map((v, i) => (i >= 57 ? v + 40 : v));
    expect(changePoints(lastThree, { minSegment: 3 }).points.map((p) => p.index)).toEqual([57]);
    const lastTwo = base.map((v, i) => (i >= 58 ? v + 40 : v));
    expect(changePoints(lastTwo).points.map((p) => p.index)).toEqual([58]);
    expect(changePoints(lastTwo, { minSegment: 3 }).points).toEqual([]);
  });

  it('rejects a window shorter than 2, as Otava asserts (split: window_len >= 2)', () => {
    expect(() => changePoints([1, 2, 3], { windowLen: 1 })).toThrow(/at least 2/);
    expect(changePoints([1, 2, 3], { windowLen: 2 }).points).toEqual([]);
  });

  it('keeps a point only when its magnitude is above the minimum (Otava merge: > min_magnitude)', () => {
    const base = Array.from({ length: 60 }, (_, i) => 100 + ((i * 7) % 5) * 0.2);
    const step = base.map((v, i) => (i >= 30 ? v + 10 : v));
    const [point] = changePoints(step).points;
    const magnitude = point?.magnitude as number;
    expect(changePoints(step, { minMagnitude: magnitude }).points).toEqual([]);
    expect(changePoints(step, { minMagnitude: magnitude * 0.999 }).points).toHaveLength(1);
  });
});
