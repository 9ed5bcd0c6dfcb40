import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { decodeHdr } from './hdr.ts';
import {
  gridWithUpload,
  intervalsWithUpload,
  keptSlotsOf,
  keptSlotsOfRun,
  type SlotBasis,
  type SlotRecord,
  sameBasis,
  sameGrid,
  slotOfRecord,
  slotRecord,
  slotRecords,
  slotStartsOf,
} from './load-slot-rows.ts';
import { buildSlots, emptySlot, type StoredInterval } from './load-steps.ts';

/** An interval's histogram as hdr-histogram-js records and encodes it (values in µs). */
function hdrOf(valuesUs: number[]): Uint8Array {
  const h = build({ numberOfSignificantValueDigits: 3 });
  for (const v of valuesUs) h.recordValue(v);
  return new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
}

const interval = (
  resultId: number,
  startMs: number,
  valuesUs: number[],
  durationMs = 1000,
): StoredInterval => ({
  resultId,
  startMs,
  durationMs,
  count: valuesUs.length,
  errors: resultId === 2 ? 1 : null,
  hdr: hdrOf(valuesUs),
});

const POINTS: { id: number; labels: Record<string, string> }[] = [
  { id: 1, labels: { hdrUnit: 'us' } },
  { id: 2, labels: { hdrUnit: 'us', hdrRoundingMs: '0.001' } },
];

function built() {
  return buildSlots(POINTS, [
    interval(1, 0, [1000, 2000, 3000]),
    interval(2, 10, [4000, 5000]),
    interval(1, 1000, [1500]),
  ]);
}

describe('slotRecord and slotOfRecord', () => {
  it("keep a slot's counts, range, rounding and kept percentiles through its row", () => {
    const { grid, slots } = built();
    expect(slots.map((s) => s.startMs)).toEqual([0, 1000]);
    const first = slots[0] as (typeof slots)[number];
    const row = slotRecord(grid, first);
    expect(row).toMatchObject({
      startMs: 0,
      intervalMs: 1000,
      unit: 'us',
      durationMs: 1000,
      requests: 5,
      errors: 1,
      generators: 2,
      roundingMs: 0.001,
    });
    // The range is the histogram's: within 0.1 % of 1 ms and 5 ms (3 digits).
    expect(row.minMs).toBeCloseTo(1, 2);
    expect(row.maxMs).toBeCloseTo(5, 2);
    expect(row.percentiles.map((p) => p.p)).toEqual([50, 90, 99, 99.9]);
    // Nearest rank of 5 values: p50 is the 3rd (3 ms), p90 the 5th (5 ms).
    expect(row.percentiles[0]?.ms).toBeCloseTo(3, 2);
    expect(row.percentiles[1]?.ms).toBeCloseTo(5, 2);
    expect(decodeHdr(row.hdr).total).toBe(5);

    const back = slotOfRecord(row);
    expect(back).toMatchObject({ startMs: 0, requests: 5, errors: 1, generators: 2 });
    expect(back.kept).toEqual(row.percentiles);
    expect(back.merger.rounding).toBe(0.001);
    expect(slotRecord(grid, back)).toEqual(row);
  });

  it('reads a row without its histogram (kept percentiles only) and counts as numbers', () => {
    const { grid, slots } = built();
    const row = slotRecord(grid, slots[1] as (typeof slots)[number]);
    const read = slotOfRecord({ ...row, hdr: null, errors: null });
    expect(read.merger.counts).toBeNull();
    expect(read.errors).toBeNull();
    expect(read.kept).toEqual(row.percentiles);
    // A slot without its histogram has no row to write.
    expect(() => slotRecord(grid, read)).toThrow(/without a histogram/);
    expect(() => slotRecord(grid, emptySlot(0, 'us'))).toThrow(/without a histogram/);
  });

  it('slotRecords steps once a slot and gives every row', () => {
    const { grid, slots } = built();
    const steps = slotRecords(grid, slots);
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    expect(yields).toBe(2);
    expect(r.value).toEqual(slots.map((s) => slotRecord(grid, s)));
  });
});

describe('the basis an upload merges on', () => {
  const basis: SlotBasis = {
    earlier: 4,
    intervalMs: 1000,
    grids: 1,
    unit: 'ns',
    intervals: 4,
    slots: 2,
  };

  it('keptSlotsOf: the kept grid in its unit, none without slots, -1 on several grids', () => {
    expect(keptSlotsOf(basis)).toEqual({ grid: { intervalMs: 1000, unit: 'ns' }, intervals: 4 });
    expect(keptSlotsOf({ ...basis, unit: 'furlongs' }).grid?.unit).toBe('us');
    expect(keptSlotsOf({ ...basis, intervalMs: null, unit: null, intervals: 0 })).toEqual({
      grid: null,
      intervals: 0,
    });
    expect(keptSlotsOf({ ...basis, grids: 2 }).intervals).toBe(-1);
  });

  it('sameBasis: any field changed is another basis', () => {
    expect(sameBasis(basis, { ...basis })).toBe(true);
    for (const k of Object.keys(basis) as (keyof SlotBasis)[]) {
      const other = { ...basis, [k]: k === 'unit' ? 'us' : 99 };
      expect(sameBasis(basis, other), k).toBe(false);
    }
  });

  it('sameGrid: the same slot length and unit', () => {
    expect(sameGrid({ intervalMs: 1000, unit: 'us' }, { intervalMs: 1000, unit: 'us' })).toBe(true);
    expect(sameGrid({ intervalMs: 1000, unit: 'us' }, { intervalMs: 500, unit: 'us' })).toBe(false);
    expect(sameGrid({ intervalMs: 1000, unit: 'us' }, { intervalMs: 1000, unit: 'ns' })).toBe(
      false,
    );
  });

  it("gridWithUpload: the most common length and finest unit of the run's and the upload's", () => {
    const upload = [
      {
        labels: { hdrUnit: 'ns' },
        intervals: [500, 500, 500].map((d, k) => ({ ...interval(9, k * d, [1], d) })),
      },
    ];
    // Stored: two 1 s intervals in µs; the upload's three 500 ms ones in ns win.
    expect(gridWithUpload([{ durationMs: 1000, n: 2 }], [{ labels: {} }], upload)).toEqual({
      intervalMs: 500,
      unit: 'ns',
    });
    expect(gridWithUpload([{ durationMs: 1000, n: 4 }], [{ labels: {} }], upload)).toEqual({
      intervalMs: 1000,
      unit: 'ns',
    });
    expect(
      gridWithUpload([{ durationMs: 1000, n: 1 }], [{ labels: { hdrUnit: 'ms' } }], []),
    ).toEqual({ intervalMs: 1000, unit: 'ms' });
  });

  it('slotStartsOf: each interval start rounded to the grid, once', () => {
    const upload = [
      { labels: {}, intervals: [interval(1, 0, [1]), interval(1, 490, [1])] },
      { labels: {}, intervals: [interval(2, 510, [1]), interval(2, 1000, [1])] },
    ];
    expect(slotStartsOf(upload, 1000)).toEqual([0, 1000]);
    expect(slotStartsOf(upload, 500).sort((a, b) => a - b)).toEqual([0, 500, 1000]);
  });

  it("intervalsWithUpload: the upload's intervals under its ids, all in time then point order", () => {
    const stored = [interval(1, 0, [1]), interval(1, 1000, [1])];
    const { resultId: _r, ...a } = interval(0, 1000, [2]);
    const { resultId: _s, ...b } = interval(0, 0, [3]);
    const { resultId: _t, ...c } = interval(0, 500, [4]);
    const all = intervalsWithUpload(
      stored,
      [
        { labels: {}, intervals: [a, b] },
        { labels: {}, intervals: [c] },
      ],
      [7, 3],
    );
    expect(all.map((i) => [i.startMs, i.resultId])).toEqual([
      [0, 1],
      [0, 7],
      [500, 3],
      [1000, 1],
      [1000, 7],
    ]);
    expect(all[1]?.hdr).toBe(b.hdr);
  });
});

describe('keptSlotsOfRun', () => {
  const rowsOf = (): SlotRecord[] => {
    const { grid, slots } = built();
    return slots.map((s) => slotRecord(grid, s));
  };
  const spans = [
    { resultId: 1, fromMs: 0, toMs: 2000, n: 2 },
    { resultId: 2, fromMs: 10, toMs: 1010, n: 1 },
  ];

  it("gives the slots, their grid and the points' spans when they hold every interval", () => {
    const rows = rowsOf();
    const kept = keptSlotsOfRun(rows, spans);
    expect(kept?.grid).toEqual({ intervalMs: 1000, unit: 'us' });
    expect(kept?.slots.map((s) => [s.startMs, s.requests])).toEqual([
      [0, 5],
      [1000, 1],
    ]);
    expect([...(kept?.spans ?? [])]).toEqual([
      [1, { fromMs: 0, toMs: 2000 }],
      [2, { fromMs: 10, toMs: 1010 }],
    ]);
  });

  it('is null when the slots merged fewer intervals than the run has, or differ in grid', () => {
    expect(keptSlotsOfRun(rowsOf(), [...spans, { resultId: 3, fromMs: 0, toMs: 1, n: 1 }])).toBe(
      null,
    );
    const rows = rowsOf();
    expect(
      keptSlotsOfRun([rows[0] as SlotRecord, { ...(rows[1] as SlotRecord), unit: 'ns' }], spans),
    ).toBe(null);
    expect(
      keptSlotsOfRun(
        [rows[0] as SlotRecord, { ...(rows[1] as SlotRecord), intervalMs: 500 }],
        spans,
      ),
    ).toBe(null);
  });

  it('an empty run: no slots on an empty grid; intervals without slots: null', () => {
    expect(keptSlotsOfRun([], [])).toEqual({
      grid: { intervalMs: 0, unit: 'us' },
      slots: [],
      spans: new Map(),
    });
    expect(keptSlotsOfRun([], spans)).toBeNull();
  });
});
