// An interval-log upload's staged rows (load_intervals, staged_load_slots) as binary COPY data:
// built here with no query builder (drizzle made each row's parameters on the event loop, and
// the embedded database parsed them in the same turn), stored as the inserts stored them.
import {
  CopyBinaryWriter,
  int64Field,
  putDoubleField,
  putInt4Field,
  putInt8Field,
  putInt16,
  putNullField,
  uuidField,
} from '@meshbench/db';
import type { SlotRecord } from '../domain/load-slot-rows.ts';

export const INTERVAL_COLUMNS = [
  'run_id',
  'result_id',
  'start_ms',
  'duration_ms',
  'count',
  'errors',
  'min_ms',
  'max_ms',
  'hdr',
];

export const STAGED_SLOT_COLUMNS = [
  'run_id',
  'stage_id',
  'start_ms',
  'interval_ms',
  'unit',
  'duration_ms',
  'requests',
  'errors',
  'generators',
  'min_ms',
  'max_ms',
  'rounding_ms',
  'percentiles',
  'hdr',
];

/** An interval of a step as load_intervals stores it (without its run and its result). */
export interface StoredInterval {
  startMs: number;
  durationMs: number;
  count: number;
  errors: number | null;
  minMs: number | null;
  maxMs: number | null;
  hdr: Uint8Array;
}

/** An interval with the result it belongs to. */
export interface IntervalRow extends StoredInterval {
  resultId: number;
}

const TWO_63 = 2 ** 63;

/** A bigint's field; a value its text would not be (not an integer, out of range) throws. */
function putBigint(d: Uint8Array, p: number, v: number, column: string): number {
  if (!Number.isInteger(v) || Math.abs(v) >= TWO_63)
    throw new RangeError(`${column}: "${v}" is not a bigint`);
  return putInt8Field(d, p, v);
}

const putDoubleOrNull = (d: Uint8Array, p: number, v: number | null | undefined) =>
  v === null || v === undefined ? putNullField(d, p) : putDoubleField(d, p, v);

const putBigintOrNull = (d: Uint8Array, p: number, v: number | null | undefined, column: string) =>
  v === null || v === undefined ? putNullField(d, p) : putBigint(d, p, v, column);

/** Intervals of a run as one binary COPY's data into load_intervals (INTERVAL_COLUMNS). */
export function intervalCopyRows(runId: string, rows: Iterable<IntervalRow>): Uint8Array[] {
  const out = new CopyBinaryWriter();
  const run = uuidField(runId);
  for (const r of rows) {
    // Fixed fields: 8 bytes of int8 or float8 each, with its 4-byte length.
    out.room(2 + run.length + 12 * 7);
    let p = putInt16(out.buf, out.pos, INTERVAL_COLUMNS.length);
    out.buf.set(run, p);
    p = putBigint(out.buf, p + run.length, r.resultId, 'result_id');
    p = putDoubleField(out.buf, p, r.startMs);
    p = putDoubleField(out.buf, p, r.durationMs);
    p = putBigint(out.buf, p, r.count, 'count');
    p = putBigintOrNull(out.buf, p, r.errors, 'errors');
    p = putDoubleOrNull(out.buf, p, r.minMs);
    p = putDoubleOrNull(out.buf, p, r.maxMs);
    out.pos = p;
    out.field(r.hdr);
  }
  return out.end();
}

/** Slot rows of a staged upload as one binary COPY's data into staged_load_slots. */
export function stagedSlotCopyRows(
  runId: string,
  stageId: number,
  rows: Iterable<Omit<SlotRecord, 'percentiles'> & { percentiles: unknown }>,
): Uint8Array[] {
  const out = new CopyBinaryWriter();
  const run = uuidField(runId);
  const stage = int64Field(stageId);
  for (const r of rows) {
    out.room(2 + run.length + stage.length + 12 * 2);
    out.pos = putInt16(out.buf, out.pos, STAGED_SLOT_COLUMNS.length);
    out.bytes(run);
    out.bytes(stage);
    out.pos = putDoubleField(out.buf, out.pos, r.startMs);
    out.pos = putDoubleField(out.buf, out.pos, r.intervalMs);
    out.text(r.unit);
    // duration, requests, errors, generators, min, max, rounding, with their lengths.
    out.room(12 * 7);
    let p = putDoubleField(out.buf, out.pos, r.durationMs);
    p = putBigint(out.buf, p, r.requests, 'requests');
    p = putBigintOrNull(out.buf, p, r.errors, 'errors');
    if (!Number.isInteger(r.generators) || Math.abs(r.generators) >= 2 ** 31)
      throw new RangeError(`generators: "${r.generators}" is not an integer`);
    p = putInt4Field(out.buf, p, r.generators);
    p = putDoubleOrNull(out.buf, p, r.minMs);
    p = putDoubleOrNull(out.buf, p, r.maxMs);
    out.pos = putDoubleField(out.buf, p, r.roundingMs);
    // jsonb's binary form: version 1, then the text (what drizzle's JSON.stringify sent).
    out.text(JSON.stringify(r.percentiles), 1);
    out.field(r.hdr);
  }
  return out.end();
}
