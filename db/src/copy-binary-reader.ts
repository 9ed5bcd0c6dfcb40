// Reads what `COPY ... TO STDOUT WITH (FORMAT binary)` writes, field by field, in the order
// the query selects them: no string or object per field unless the caller asks for text.
// https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4

import { PG_EPOCH_US } from './pg-epoch.ts';
import { isUuid } from './uuid.ts';

const SIGNATURE = 'PGCOPY\n\xff\r\n\0';
const TWO_32 = 4_294_967_296;

export class CopyBinaryReader {
  private p: number;

  constructor(private readonly b: Buffer) {
    if (b.length < 19 || b.toString('latin1', 0, 11) !== SIGNATURE) {
      throw new Error('not the output of a binary COPY');
    }
    this.p = 15; // signature and flags
    this.p += 4 + b.readInt32BE(this.p); // header extension
  }

  /** Moves to the next tuple; false at the trailer. */
  next(): boolean {
    const fields = this.b.readInt16BE(this.p);
    this.p += 2;
    return fields !== -1;
  }

  /** The next field's length, or -1 for NULL; the position moves past the length. */
  private length(): number {
    const n = this.b.readInt32BE(this.p);
    this.p += 4;
    return n;
  }

  float8(): number | null {
    if (this.length() === -1) return null;
    const v = this.b.readDoubleBE(this.p);
    this.p += 8;
    return v;
  }

  /** An int2, int4 or int8 field (an int8 beyond 2^53 loses precision). */
  int(): number | null {
    const n = this.length();
    if (n === -1) return null;
    const b = this.b;
    const at = this.p;
    this.p += n;
    if (n === 2) return b.readInt16BE(at);
    if (n === 4) return b.readInt32BE(at);
    return b.readInt32BE(at) * TWO_32 + b.readUInt32BE(at + 4);
  }

  /**
   * A timestamptz field as epoch milliseconds, with its microseconds as the fraction: one
   * rounding, as `(extract(epoch from t) * 1000)::float8` gives, without Postgres' numeric
   * arithmetic on every row.
   */
  timestampMs(): number | null {
    if (this.length() === -1) return null;
    const b = this.b;
    const sinceY2k = b.readInt32BE(this.p) * TWO_32 + b.readUInt32BE(this.p + 4);
    this.p += 8;
    return (sinceY2k + PG_EPOCH_US) / 1000;
  }

  text(): string | null {
    const n = this.length();
    if (n === -1) return null;
    const at = this.p;
    this.p += n;
    return this.b.toString('utf8', at, at + n);
  }

  /** A one-dimensional text[] (array_send's form: dimensions, then length-prefixed items). */
  textArray(): (string | null)[] | null {
    const n = this.length();
    if (n === -1) return null;
    const b = this.b;
    const end = this.p + n;
    const dims = b.readInt32BE(this.p);
    this.p += 12; // dimensions, has-nulls flag, element type
    if (dims === 0) {
      this.p = end;
      return [];
    }
    if (dims !== 1) throw new Error(`a ${dims}-dimensional array`);
    const size = b.readInt32BE(this.p);
    this.p += 8; // size and lower bound
    const out: (string | null)[] = new Array(size);
    for (let i = 0; i < size; i++) out[i] = this.text();
    if (this.p !== end) throw new Error('an array longer than its length');
    return out;
  }

  bytes(): Buffer | null {
    const n = this.length();
    if (n === -1) return null;
    const at = this.p;
    this.p += n;
    return this.b.subarray(at, at + n);
  }
}

/** A uuid as a literal for a query that takes no parameters (COPY); refuses anything else. */
export function uuidLiteral(value: string): string {
  if (!isUuid(value)) {
    throw new Error(`not a uuid: ${value}`);
  }
  return `'${value}'::uuid`;
}

/** Epoch milliseconds as a timestamptz literal. */
export function timestampLiteral(ms: number): string {
  if (!Number.isFinite(ms)) throw new Error(`not a time: ${ms}`);
  return `'${new Date(ms).toISOString()}'::timestamptz`;
}
