// Splits a byte stream into lines without ever holding the whole body: NDJSON's framing.

export interface Line {
  /** 1-based line number in the body. */
  no: number;
  text: string;
}

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body is larger than the limit of ${limit} bytes`);
  }
}

/** Yields non-blank lines; `limit` caps the bytes read (after decompression). */
export async function* splitLines(
  chunks: AsyncIterable<Buffer | Uint8Array | string>,
  limit = Number.POSITIVE_INFINITY,
): AsyncGenerator<Line> {
  let carry: Buffer | null = null;
  let no = 0;
  let total = 0;
  for await (const raw of chunks) {
    const chunk =
      typeof raw === 'string'
        ? Buffer.from(raw)
        : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    total += chunk.length;
    if (total > limit) throw new BodyTooLargeError(limit);
    const buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    let nl = buf.indexOf(10, start);
    while (nl !== -1) {
      no++;
      const end = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
      if (end > start) {
        const text = buf.toString('utf8', start, end);
        if (text.trim() !== '') yield { no, text };
      }
      start = nl + 1;
      nl = buf.indexOf(10, start);
    }
    carry = start < buf.length ? buf.subarray(start) : null;
  }
  if (carry && carry.length > 0) {
    no++;
    const text = carry.toString('utf8');
    if (text.trim() !== '') yield { no, text };
  }
}
