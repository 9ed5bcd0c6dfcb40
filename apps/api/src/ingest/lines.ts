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

/**
 * Yields the non-blank lines of each chunk together (one await per chunk, not per line);
 * `limit` caps the bytes read (after decompression).
 */
export async function* splitLines(
  chunks: AsyncIterable<Buffer | Uint8Array | string>,
  limit = Number.POSITIVE_INFINITY,
): AsyncGenerator<Line[]> {
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
    // Decoded once up to the last newline (never inside a multi-byte character), then cut.
    const lastNl = buf.lastIndexOf(10);
    if (lastNl === -1) {
      carry = buf;
      continue;
    }
    const text = buf.toString('utf8', 0, lastNl + 1);
    carry = lastNl + 1 < buf.length ? buf.subarray(lastNl + 1) : null;
    const lines: Line[] = [];
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl !== -1) {
      no++;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      if (end > start) {
        const line = text.slice(start, end);
        if (!isBlank(line)) lines.push({ no, text: line });
      }
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    if (lines.length > 0) yield lines;
  }
  if (carry && carry.length > 0) {
    no++;
    const text = carry.toString('utf8');
    if (!isBlank(text)) yield [{ no, text }];
  }
}

/** Most lines start with '{': only the others need a trim to know they are blank. */
const isBlank = (line: string) => line.charCodeAt(0) !== 123 && line.trim() === '';
