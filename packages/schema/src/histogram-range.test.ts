import { describe, expect, it } from 'vitest';
import {
  decadeFloor,
  linearHistogramRange,
  logHistogramRange,
  niceCeil,
} from './histogram-range.ts';

describe('logHistogramRange', () => {
  it('starts at the decade of the smallest positive latency when some are at or below 0', () => {
    expect(logHistogramRange(-12.197, 17.162)).toEqual({ fromMs: 10 });
    expect(logHistogramRange(0, 0.5)).toEqual({ fromMs: 0.1 });
  });
  it('leaves the API its minimum when every latency is positive, or none is', () => {
    expect(logHistogramRange(12, 12)).toEqual({});
    expect(logHistogramRange(null, undefined)).toEqual({});
    expect(logHistogramRange(-3, undefined)).toEqual({});
  });
});

describe('linearHistogramRange', () => {
  it('reaches the within line when it is past the body, and is null with nothing to draw', () => {
    expect(linearHistogramRange([{ p: 99, ms: 120 }], 1000)).toEqual({ fromMs: 0, toMs: 1000 });
    expect(linearHistogramRange([{ p: 99, ms: 120 }])).toEqual({ fromMs: 0, toMs: 120 });
    expect(linearHistogramRange([{ p: 99, ms: -5 }], 1000)).toBeNull();
    expect(linearHistogramRange([])).toBeNull();
  });
});

describe('niceCeil and decadeFloor', () => {
  it('round to the steps', () => {
    expect(niceCeil(962.37)).toBe(1000);
    expect(niceCeil(239644)).toBe(250000);
    expect(niceCeil(0)).toBe(0);
    expect(decadeFloor(17.162)).toBe(10);
    expect(decadeFloor(0.5)).toBe(0.1);
  });
});
