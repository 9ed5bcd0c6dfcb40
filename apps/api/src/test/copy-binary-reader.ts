// Reads Postgres' binary COPY stream back, written from the format's documentation (not from
// the writer), so that tests can check what a batch would load.
// https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** Each tuple's fields as raw bytes, null for NULL. */
export function readCopyBinary(stream: Uint8Array): (Buffer | null)[][] {
  const b = Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength);
  if (!b.subarray(0, 11).equals(SIGNATURE)) throw new Error('no PGCOPY signature');
  let p = 11;
  const flags = b.readInt32BE(p);
  if (flags !== 0) throw new Error(`flags ${flags}`);
  p += 4;
  p += 4 + b.readInt32BE(p); // header extension
  const tuples: (Buffer | null)[][] = [];
  for (;;) {
    const count = b.readInt16BE(p);
    p += 2;
    if (count === -1) break;
    const fields: (Buffer | null)[] = [];
    for (let i = 0; i < count; i++) {
      const length = b.readInt32BE(p);
      p += 4;
      if (length === -1) {
        fields.push(null);
      } else {
        fields.push(b.subarray(p, p + length));
        p += length;
      }
    }
    tuples.push(fields);
  }
  if (p !== b.length) throw new Error(`${b.length - p} bytes after the trailer`);
  return tuples;
}

/** A timestamptz field as an ISO string (millisecond precision) and its microseconds. */
export function timestampOf(field: Buffer): { iso: string; micros: number } {
  const pgUs = field.readBigInt64BE(0);
  const unixUs = pgUs + 946_684_800_000_000n;
  const ms = unixUs / 1000n - (unixUs % 1000n < 0n ? 1n : 0n);
  return { iso: new Date(Number(ms)).toISOString(), micros: Number(unixUs - ms * 1000n) };
}
