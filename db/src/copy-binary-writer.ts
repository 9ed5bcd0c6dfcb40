// Postgres' binary COPY format: the header, tuples of length-prefixed fields in network
// byte order, and the trailer. Postgres then parses no text (no uuid, no timestamp, no
// float, no escapes): a COPY of observations costs it about half.
// https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4

import { PG_EPOCH_US } from './pg-epoch.ts';

/** Signature, flags (none) and header extension length (none). */
export const COPY_BINARY_HEADER = Uint8Array.from([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/** A field count of -1 ends the data. */
export const COPY_BINARY_TRAILER = Uint8Array.from([0xff, 0xff]);

const TWO_32 = 4_294_967_296;

export function putInt16(d: Uint8Array, p: number, v: number): number {
  d[p] = (v >>> 8) & 255;
  d[p + 1] = v & 255;
  return p + 2;
}

export function putInt32(d: Uint8Array, p: number, v: number): number {
  d[p] = (v >>> 24) & 255;
  d[p + 1] = (v >>> 16) & 255;
  d[p + 2] = (v >>> 8) & 255;
  d[p + 3] = v & 255;
  return p + 4;
}

/** A safe integer as a signed 64-bit big-endian value. */
export function putInt64(d: Uint8Array, p: number, v: number): number {
  const hi = Math.floor(v / TWO_32);
  return putInt32(d, putInt32(d, p, hi | 0), v - hi * TWO_32);
}

/** A timestamptz field (length and value) from epoch microseconds. */
export function putTimestampField(d: Uint8Array, p: number, epochUs: number): number {
  return putInt64(d, putInt32(d, p, 8), epochUs - PG_EPOCH_US);
}

/** A NULL field. */
export function putNullField(d: Uint8Array, p: number): number {
  return putInt32(d, p, -1);
}

/** A text field copied from bytes s[from, to) that are already UTF-8. */
export function putBytesField(
  d: Uint8Array,
  p: number,
  s: Uint8Array,
  from: number,
  to: number,
): number {
  let q = putInt32(d, p, to - from);
  for (let i = from; i < to; i++) d[q++] = s[i] as number;
  return q;
}

/** A uuid field from its text form. */
export function uuidField(uuid: string): Uint8Array {
  const bytes = Buffer.from(uuid.replace(/-/g, ''), 'hex');
  if (bytes.length !== 16) throw new Error(`not a uuid: ${uuid}`);
  const field = new Uint8Array(20);
  putInt32(field, 0, 16);
  field.set(bytes, 4);
  return field;
}

/** A bigint field. */
export function int64Field(v: number): Uint8Array {
  const field = new Uint8Array(12);
  putInt64(field, putInt32(field, 0, 8), v);
  return field;
}

const scratch = new Float64Array(1);
const scratchBytes = new Uint8Array(scratch.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A float8 field (length and value), or NULL for null and non-finite values. */
export function putFloat8Field(d: Uint8Array, p: number, v: number | null): number {
  if (v === null || !Number.isFinite(v)) return putInt32(d, p, -1);
  let q = putInt32(d, p, 8);
  scratch[0] = v;
  if (LITTLE_ENDIAN) for (let i = 7; i >= 0; i--) d[q++] = scratchBytes[i] as number;
  else for (let i = 0; i < 8; i++) d[q++] = scratchBytes[i] as number;
  return q;
}

/**
 * A float8 field as Postgres' float8in reads the number's text (`String(v)`, what a bind
 * parameter sends): the number itself, except -0, whose text is "0"; NaN and infinities kept.
 */
export function putDoubleField(d: Uint8Array, p: number, v: number): number {
  let q = putInt32(d, p, 8);
  scratch[0] = v === 0 ? 0 : v;
  if (LITTLE_ENDIAN) for (let i = 7; i >= 0; i--) d[q++] = scratchBytes[i] as number;
  else for (let i = 0; i < 8; i++) d[q++] = scratchBytes[i] as number;
  return q;
}

/** An int4 field. */
export function putInt4Field(d: Uint8Array, p: number, v: number): number {
  return putInt32(d, putInt32(d, p, 4), v);
}

/** An int8 field. */
export function putInt8Field(d: Uint8Array, p: number, v: number): number {
  return putInt64(d, putInt32(d, p, 8), v);
}

/** Postgres' oid of text, for the elements of a text[] field. */
const TEXT_OID = 25;

/** The bytes of a one-dimensional text[] field (length included), as array_recv reads it. */
export function textArrayField(values: string[]): Uint8Array {
  if (values.length === 0) {
    // No dimensions: the empty array.
    const empty = new Uint8Array(16);
    putInt32(empty, putInt32(empty, putInt32(empty, putInt32(empty, 0, 12), 0), 0), TEXT_OID);
    return empty;
  }
  const items = values.map((v) => Buffer.from(v));
  const size = 20 + items.reduce((n, b) => n + 4 + b.length, 0);
  const out = new Uint8Array(4 + size);
  let p = putInt32(out, 0, size);
  p = putInt32(out, p, 1); // dimensions
  p = putInt32(out, p, 0); // no NULLs
  p = putInt32(out, p, TEXT_OID);
  p = putInt32(out, p, values.length);
  p = putInt32(out, p, 1); // lower bound
  for (const b of items) {
    p = putInt32(out, p, b.length);
    out.set(b, p);
    p += b.length;
  }
  return out;
}

const CHUNK_BYTES = 256 * 1024;

/**
 * Rows in COPY's binary format, gathered into chunks of bytes; a chunk handed out is
 * never written again. Fields are written by the put*() functions at `pos` after room().
 */
export class CopyBinaryWriter {
  buf = Buffer.allocUnsafe(CHUNK_BYTES);
  pos = 0;
  private full: Uint8Array[] = [];

  constructor() {
    this.buf.set(COPY_BINARY_HEADER);
    this.pos = COPY_BINARY_HEADER.length;
  }

  /** Makes room for n more bytes in `buf` at `pos`. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.pos > 0) this.full.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, n));
    this.pos = 0;
  }

  bytes(value: Uint8Array): void {
    this.room(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  nullField(): void {
    this.room(4);
    this.pos = putNullField(this.buf, this.pos);
  }

  /** A field of these bytes as they are (bytea's binary form). */
  field(value: Uint8Array): void {
    this.room(4 + value.length);
    this.pos = putInt32(this.buf, this.pos, value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** A text field, or NULL; `prefix` goes before the text (jsonb's version byte 1). */
  text(value: string | undefined, prefix?: number): void {
    if (value === undefined) {
      this.room(4);
      this.pos = putNullField(this.buf, this.pos);
      return;
    }
    this.room(5 + value.length * 3);
    const at = this.pos;
    let p = at + 4;
    if (prefix !== undefined) this.buf[p++] = prefix;
    p += this.buf.write(value, p);
    putInt32(this.buf, at, p - at - 4);
    this.pos = p;
  }

  hasFull(): boolean {
    return this.full.length > 0;
  }

  /** The chunks filled so far. */
  take(): Uint8Array[] {
    const full = this.full;
    this.full = [];
    return full;
  }

  /** Every chunk, the last one too, with the trailer. */
  end(): Uint8Array[] {
    this.bytes(COPY_BINARY_TRAILER);
    this.full.push(this.buf.subarray(0, this.pos));
    this.pos = 0;
    this.buf = Buffer.alloc(0);
    return this.take();
  }
}
