// The maths between a run's kept load slots and the rows load_slots stores: a slot as its row
// (kept percentiles, range, histogram encoded) and back, the grid of a run with an upload's
// points, what an upload merges on (the kept grid, the slot starts it touches) and whether a
// run's kept slots hold every interval. Pure: the results repository reads and writes the
// rows and calls these.
import type { StagePercentile } from '@meshbench/schema';
import { decodeHdr, encodePlain } from './hdr.ts';
import {
  HdrMerger,
  type IntervalSpans,
  KEPT_SLOT_PERCENTILES,
  type KeptSlots,
  type Slot,
  type SlotGrid,
  type StoredInterval,
  slotGrid,
  slotStart,
  unitOf,
} from './load-steps.ts';

/** A kept slot as a load_slots row holds it (without its run). */
export interface SlotRecord {
  startMs: number;
  intervalMs: number;
  unit: string;
  durationMs: number;
  requests: number;
  errors: number | null;
  generators: number;
  minMs: number | null;
  maxMs: number | null;
  roundingMs: number;
  percentiles: StagePercentile[];
  /** The merged histogram, HdrHistogram V2 encoding uncompressed. */
  hdr: Uint8Array;
}

/** A slot row as read: its histogram may be left out (null) when its kept percentiles answer. */
export type SlotRecordRead = Omit<SlotRecord, 'hdr' | 'percentiles'> & {
  percentiles: unknown;
  hdr: Uint8Array | null;
};

/** The slot a row holds. */
export function slotOfRecord(r: SlotRecordRead): Slot {
  const unit = unitOf({ hdrUnit: r.unit });
  return {
    startMs: r.startMs,
    durationMs: r.durationMs,
    requests: Number(r.requests),
    errors: r.errors === null ? null : Number(r.errors),
    generators: r.generators,
    merger: HdrMerger.of(unit, r.hdr === null ? null : decodeHdr(r.hdr), r.roundingMs),
    kept: r.percentiles as StagePercentile[],
  };
}

/** The row of a slot merged on `grid`. */
export function slotRecord(grid: SlotGrid, s: Slot): SlotRecord {
  const counts = s.merger.counts;
  if (!counts) throw new Error('a slot without a histogram');
  const { min, max } = s.merger.range();
  return {
    startMs: s.startMs,
    intervalMs: grid.intervalMs,
    unit: grid.unit,
    durationMs: s.durationMs,
    requests: s.requests,
    errors: s.errors,
    generators: s.generators,
    minMs: min,
    maxMs: max,
    roundingMs: s.merger.rounding,
    percentiles: s.merger.percentiles(KEPT_SLOT_PERCENTILES),
    hdr: encodePlain(counts),
  };
}

/** slotRecord of each slot, one step a slot (runSliced runs it between the event loop's turns). */
export function* slotRecords(grid: SlotGrid, slots: Slot[]): Generator<void, SlotRecord[]> {
  const rows: SlotRecord[] = [];
  for (const s of slots) {
    rows.push(slotRecord(grid, s));
    yield;
  }
  return rows;
}

/** Whether two slot rows were merged on the same grid and unit. */
export const sameGrid = (
  a: Pick<SlotRecord, 'intervalMs' | 'unit'>,
  b: Pick<SlotRecord, 'intervalMs' | 'unit'>,
) => a.intervalMs === b.intervalMs && a.unit === b.unit;

/**
 * What a merge of an upload into a run's slots starts from: the run's visible intervals
 * (`earlier`) and its kept slots' grid (null when none), grids, unit, intervals and slots.
 */
export interface SlotBasis {
  earlier: number;
  intervalMs: number | null;
  grids: number;
  unit: string | null;
  intervals: number;
  slots: number;
}

/** Whether the basis a merge started from is the run's still (no other upload changed it). */
export const sameBasis = (a: SlotBasis, b: SlotBasis) => JSON.stringify(a) === JSON.stringify(b);

/** The kept slots as addUpload sees them: their grid, and -1 intervals when on several grids. */
export function keptSlotsOf(basis: SlotBasis): KeptSlots {
  return {
    grid:
      basis.intervalMs === null
        ? null
        : { intervalMs: basis.intervalMs, unit: unitOf({ hdrUnit: basis.unit ?? '' }) },
    intervals: basis.grids > 1 ? -1 : basis.intervals,
  };
}

/** An upload's point: its labels and its intervals. */
export interface UploadPoint {
  labels: Record<string, string>;
  intervals: Omit<StoredInterval, 'resultId'>[];
}

/**
 * The run's grid with an upload's points: the stored intervals' lengths (`lengths`, each
 * with its count) and the stored points' labels, and the upload's intervals and labels.
 */
export function gridWithUpload(
  lengths: { durationMs: number; n: number }[],
  stored: { labels: Record<string, string> }[],
  adding: UploadPoint[],
): SlotGrid {
  return slotGrid(
    [
      ...lengths,
      ...adding.flatMap((p) => p.intervals.map((i) => ({ durationMs: i.durationMs, n: 1 }))),
    ],
    [...stored, ...adding.map((p) => ({ labels: p.labels }))],
  );
}

/** The starts of the slots an upload's intervals fall in on a grid of `intervalMs`, once each. */
export function slotStartsOf(points: UploadPoint[], intervalMs: number): number[] {
  return [
    ...new Set(points.flatMap((p) => p.intervals.map((i) => slotStart(i.startMs, intervalMs)))),
  ];
}

/**
 * A run's stored intervals and an upload's (its points under `ids`, in order), in time
 * order and then by point: what the run's slots are rebuilt from.
 */
export function intervalsWithUpload(
  stored: StoredInterval[],
  points: UploadPoint[],
  ids: number[],
): StoredInterval[] {
  return [
    ...stored,
    ...points.flatMap((p, k) =>
      p.intervals.map((v) => ({
        resultId: ids[k] as number,
        startMs: v.startMs,
        durationMs: v.durationMs,
        count: v.count,
        errors: v.errors,
        hdr: v.hdr,
      })),
    ),
  ].sort((a, b) => a.startMs - b.startMs || a.resultId - b.resultId);
}

/**
 * A run's kept slots, if they hold every interval of the run (the generators they merged
 * equal the run's intervals, and they share one grid), with its points' spans; else null
 * (the run's intervals predate them). `spans`: per point, its intervals' first start, last
 * end and count.
 */
export function keptSlotsOfRun(
  rows: SlotRecordRead[],
  spans: { resultId: number; fromMs: number; toMs: number; n: number }[],
): { grid: SlotGrid; slots: Slot[]; spans: IntervalSpans } | null {
  const merged = rows.reduce((n, r) => n + r.generators, 0);
  const intervals = spans.reduce((n, r) => n + Number(r.n), 0);
  const first = rows[0];
  if (merged !== intervals || (first && rows.some((r) => !sameGrid(r, first)))) return null;
  const bySpan: IntervalSpans = new Map(
    spans.map((r) => [Number(r.resultId), { fromMs: Number(r.fromMs), toMs: Number(r.toMs) }]),
  );
  const grid: SlotGrid = first
    ? { intervalMs: first.intervalMs, unit: unitOf({ hdrUnit: first.unit }) }
    : { intervalMs: 0, unit: 'us' };
  return { grid, slots: rows.map(slotOfRecord), spans: bySpan };
}
