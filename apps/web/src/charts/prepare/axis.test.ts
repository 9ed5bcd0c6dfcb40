import { describe, expect, it } from 'vitest';
import { decadeFloor, everyNth, linearTicks, logTicks, niceCeil, tickStep } from './axis.ts';

describe('niceCeil', () => {
  it('rounds up to the next round number', () => {
    expect(niceCeil(962.37)).toBe(1000);
    expect(niceCeil(1000)).toBe(1000);
    expect(niceCeil(1001)).toBe(1200);
    expect(niceCeil(239644.333)).toBe(250000);
    expect(niceCeil(159682.596)).toBe(200000);
    expect(niceCeil(0.113)).toBe(0.12);
    expect(niceCeil(7)).toBe(8);
    expect(niceCeil(3.1)).toBe(4);
  });
  it('gives 0 for nothing to show', () => {
    expect(niceCeil(0)).toBe(0);
    expect(niceCeil(-5)).toBe(0);
  });
});

describe('decadeFloor', () => {
  it('finds the power of ten at or below', () => {
    expect(decadeFloor(17.162)).toBe(10);
    expect(decadeFloor(10)).toBe(10);
    expect(decadeFloor(999)).toBe(100);
    expect(decadeFloor(0.5)).toBe(0.1);
  });
});

describe('linearTicks', () => {
  it('steps by 200 ms over one second', () => {
    // (1000 - 0) / 6 = 166.7 -> the next 1-2-2.5-5 step is 200.
    expect(linearTicks(0, 1000)).toEqual([0, 200, 400, 600, 800, 1000]);
  });
  it('steps by 50 s over the whole tail', () => {
    // 250000 / 6 = 41667 -> 50000.
    expect(linearTicks(0, 250_000)).toEqual([0, 50_000, 100_000, 150_000, 200_000, 250_000]);
  });
  it('starts at the first multiple inside a negative start', () => {
    // 1012.197 / 6 = 168.7 -> 200; the first multiple of 200 at or above -12.197 is 0.
    expect(linearTicks(-12.197, 1000)).toEqual([0, 200, 400, 600, 800, 1000]);
  });
  it('handles small steps without binary noise', () => {
    // 0.3 / 6 = 0.05 -> 0.05.
    expect(linearTicks(0, 0.3)).toEqual([0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]);
  });
});

describe('logTicks', () => {
  it('puts one tick on each decade', () => {
    expect(logTicks(10, 250_000)).toEqual([10, 100, 1000, 10_000, 100_000]);
    expect(logTicks(1, 1000)).toEqual([1, 10, 100, 1000]);
  });
  it('adds 2 and 5 on a short range', () => {
    expect(logTicks(10, 300)).toEqual([10, 20, 50, 100, 200]);
  });
});

describe('tickStep and everyNth: the ticks whose labels fit', () => {
  const decades = [1, 10, 100, 1000, 10_000, 100_000];
  // Labels as the time axis writes them: "1 ms" .. "100 s", at most 6 characters.
  const label = (ms: number) => (ms < 1000 ? `${ms} ms` : `${ms / 1000} s`);
  const fitTicks = (ticks: number[], widthPx: number) =>
    everyNth(ticks, tickStep(ticks, widthPx, label));

  it('keeps every tick where the labels fit (a 600 px axis: 120 px between decades)', () => {
    expect(fitTicks(decades, 600)).toEqual(decades);
  });

  it('keeps every other decade on a small multiple (170 px: 34 px between decades)', () => {
    // The widest label, "100 ms", needs 6 x 7 + 10 = 52 px: two slots of 34 px.
    expect(fitTicks(decades, 170)).toEqual([1, 100, 10_000]);
  });

  it('keeps every third where two slots are still too narrow', () => {
    // 100 px: 20 px a slot, 52 px needs three.
    expect(fitTicks(decades, 100)).toEqual([1, 1000]);
  });

  it('leaves axes of two ticks alone', () => {
    expect(fitTicks([0, 10], 20)).toEqual([0, 10]);
  });
});
