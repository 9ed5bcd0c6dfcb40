import { describe, expect, it } from 'vitest';
import {
  EMPTY_CELL,
  HEAT_STOPS,
  heatColor,
  heatLegend,
  heatLevel,
  prepareHeatmap,
} from './churn-heatmap.ts';

describe('heat colours', () => {
  it('puts counts on a log scale: nothing is no colour, the largest the darkest stop', () => {
    expect(heatColor(0, 1000)).toBe(EMPTY_CELL);
    expect(heatColor(1000, 1000)).toBe(HEAT_STOPS[4]);
    // log(1 + 1) / log(1 + 1) = 1
    expect(heatColor(1, 1)).toBe(HEAT_STOPS[4]);
    // 31 of 1023: log2(32) / log2(1024) = 5 / 10 = 0.5, the middle stop exactly.
    expect(heatLevel(31, 1023)).toBeCloseTo(0.5, 12);
    expect(heatColor(31, 1023)).toBe(HEAT_STOPS[2]);
  });

  it('interpolates between stops', () => {
    // 3 of 15: log2(4) / log2(16) = 0.5 -> the middle stop; 1 of 15: 0.25 -> the second.
    expect(heatColor(1, 15)).toBe(HEAT_STOPS[1]);
    // Level 0.375 is halfway between stops 1 (#9ecae1) and 2 (#4292c6): 112, 174, 212.
    // 0.375 = log(1 + c) / log(16) -> 1 + c = 16^0.375 = 2^1.5 -> c = 1.828...
    expect(heatColor(2 ** 1.5 - 1, 15)).toBe('#70aed4');
  });

  it('has a legend from 1 through powers of ten to the largest count', () => {
    expect(heatLegend(0)).toEqual([]);
    expect(heatLegend(1).map((l) => l.count)).toEqual([1]);
    expect(heatLegend(1000).map((l) => l.count)).toEqual([1, 10, 100, 1000]);
    expect(heatLegend(250).map((l) => l.count)).toEqual([1, 10, 100, 250]);
  });
});

describe('prepareHeatmap', () => {
  const prepared = prepareHeatmap({
    label: 'x',
    scale: 'linear',
    edgesMs: [0, 500, 1000, 1500],
    rows: [
      { changeId: 'c1', counts: [8, 0, 1] },
      { changeId: 'c2', counts: [2, 5, 0] },
    ],
    maxCount: 8,
  });

  it('labels columns with their range in the unit that reads, the last one closed', () => {
    expect(prepared.columns.map((c) => c.label)).toEqual([
      '0 – 500.0 ms',
      '500.0 ms – 1.000 s',
      '1.000 – 1.500 s (closed)',
    ]);
  });

  it('gives each cell its count, colour and a title naming change, bin and count', () => {
    const c1 = prepared.rows[0]!;
    expect(c1.total).toBe(9);
    expect(c1.cells.map((c) => c.count)).toEqual([8, 0, 1]);
    expect(c1.cells[0]!.color).toBe(HEAT_STOPS[4]);
    expect(c1.cells[1]!.color).toBe(EMPTY_CELL);
    expect(c1.cells[2]!.title).toBe('c1: 1 proxy at 1.000 – 1.500 s (closed)');
    expect(prepared.rows[1]!.cells[1]!.title).toBe('c2: 5 proxies at 500.0 ms – 1.000 s');
  });

  it('labels every edge when there are few', () => {
    expect(prepared.ticks.map((t) => t.edge)).toEqual([0, 1, 2, 3]);
  });

  it('writes its ticks in one unit, zero as "0 s" (not "0.000 ms")', () => {
    expect(prepared.ticks.map((t) => t.label)).toEqual(['0 s', '0.5 s', '1 s', '1.5 s']);
  });
});
