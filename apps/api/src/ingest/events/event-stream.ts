// Decodes what the general way reads: a JSON array batch, or one NDJSON line that the
// reader of common observation lines passed on. Every error names the line or event.
import { isUtf8 } from 'node:buffer';
import type { ProbeEvent } from '@meshbench/schema';
import { sliceMs, yieldToLoop } from '../../domain/slices.ts';
import { AppError } from '../../errors.ts';
import { findBadValue, firstInvalidUtf8 } from '../stored-text.ts';
import { checkEvent, isProblem } from './probe-events.ts';

export type BatchFormat = 'ndjson' | 'json';

/** An event with the number of its line (NDJSON) or its place in the array (JSON). */
export interface NumberedEvent {
  line: number;
  event: ProbeEvent;
}

export const bodyTooLarge = (limit: number) =>
  new AppError(
    413,
    'body_too_large',
    `the batch is larger than the limit of ${limit} bytes (after decompression); split it`,
  );

function validated(value: unknown, line: number, unit: string): NumberedEvent {
  const checked = checkEvent(value);
  if (isProblem(checked)) {
    throw new AppError(400, 'invalid_event', `${unit} ${line}: ${checked.message}`, {
      line,
      ...(checked.field ? { field: checked.field } : {}),
    });
  }
  const bad = findBadValue(checked);
  if (bad) {
    throw new AppError(400, 'invalid_event', `${unit} ${line}: "${bad.path}" ${bad.reason}`, {
      line,
      field: bad.path,
    });
  }
  return { line, event: checked };
}

/** One NDJSON line's event. */
export function parseLine(text: string, no: number): ProbeEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError(
      400,
      'malformed_json',
      `line ${no}: not valid JSON (${(error as Error).message})`,
      { line: no },
    );
  }
  return validated(value, no, 'line').event;
}

/** Lets timers and I/O waiting behind the decoder run (domain/slices.ts's, for its callers). */
export { yieldToLoop };

const malformed = (message: string) =>
  new AppError(400, 'malformed_json', `body is not valid JSON (${message})`);

/** Whether byte c is JSON whitespace. */
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * A JSON array batch, read as its bytes arrive (up to `limit` bytes): cut into its elements
 * at the top level, each checked as UTF-8, parsed and validated on its own, in slices of
 * sliceMs() (domain/slices.ts) between which the event loop runs. The body is never held whole: a
 * 250 MB array is neither one JSON.parse nor one 250 MB copy that stalls every other
 * request (concatenating a 64 MB body alone held the event loop 0.4-0.8 s under load).
 * Only an element that spans chunks is copied, once, when it ends.
 */
export async function* decodeJsonArray(
  body: AsyncIterable<Buffer>,
  limit: number,
): AsyncGenerator<NumberedEvent[]> {
  const source = body[Symbol.asyncIterator]();
  let chunk: Buffer = Buffer.alloc(0);
  /** The body offset of chunk[0]. */
  let offset = 0;
  let size = 0;
  let at = 0;
  /**
   * Whether `chunk` is UTF-8 as a whole (one native check a chunk): then so is each element
   * inside it, cut at ASCII delimiters, and only elements across chunks or in a chunk that
   * is not (a character cut at its end, or a bad byte) are checked on their own.
   */
  let chunkUtf8 = true;
  /** The next chunk in `chunk` (at 0), or false at the end of the body. */
  const more = async (): Promise<boolean> => {
    for (;;) {
      const next = await source.next();
      if (next.done) return false;
      size += next.value.length;
      if (size > limit) throw bodyTooLarge(limit);
      offset += chunk.length;
      chunk = next.value;
      at = 0;
      chunkUtf8 = isUtf8(chunk);
      if (chunk.length > 0) return true;
    }
  };
  /** Skips JSON whitespace; false at the end of the body. */
  const skipSpace = async (): Promise<boolean> => {
    for (;;) {
      while (at < chunk.length && isSpace(chunk[at])) at++;
      if (at < chunk.length) return true;
      if (!(await more())) return false;
    }
  };
  const invalidUtf8 = (byte: number) =>
    new AppError(400, 'invalid_utf8', `body is not valid UTF-8 (byte ${byte + 1})`);

  if (!(await skipSpace()) || chunk[at] !== 0x5b) {
    // Not an array: read whole (to the limit), JSON.parse tells malformed JSON from JSON
    // of another kind.
    const parts = [chunk.subarray(at)];
    const from = offset + at;
    while (await more()) parts.push(chunk);
    const whole = Buffer.concat(parts);
    const badByte = firstInvalidUtf8(whole);
    if (badByte >= 0) throw invalidUtf8(from + badByte);
    try {
      JSON.parse(whole.toString('utf8'));
    } catch (error) {
      throw malformed((error as Error).message);
    }
    throw new AppError(
      400,
      'malformed_json',
      'an application/json batch must be an array of events',
    );
  }
  at++;
  const BATCH = 1000;
  let events: NumberedEvent[] = [];
  let no = 0;
  let sliceStarted = performance.now();
  for (;;) {
    if (!(await skipSpace())) throw malformed('Unexpected end of JSON input');
    if (no === 0 && chunk[at] === 0x5d) {
      at++;
      break;
    }
    // One element: to the comma or bracket that closes it at the array's level, across
    // chunks (`parts` holds its bytes in the chunks before this one).
    const parts: Buffer[] = [];
    const start = offset + at;
    let from = at;
    let depth = 0;
    let inString = false;
    let escaped = false;
    let end = -1;
    for (;;) {
      for (; at < chunk.length; at++) {
        const c = chunk[at] as number;
        if (escaped) escaped = false;
        else if (inString) {
          if (c === 0x5c) escaped = true;
          else if (c === 0x22) inString = false;
        } else if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          if (depth === 0 && c === 0x5d) {
            end = at;
            break;
          }
          depth--;
        } else if (c === 0x2c && depth === 0) {
          end = at;
          break;
        }
      }
      if (end >= 0) break;
      parts.push(chunk.subarray(from));
      if (!(await more())) throw malformed('Unexpected end of JSON input');
      from = 0;
    }
    no++;
    let text: string;
    if (parts.length === 0 && chunkUtf8) text = chunk.toString('utf8', from, end);
    else {
      const last = chunk.subarray(from, end);
      const bytes = parts.length === 0 ? last : Buffer.concat([...parts, last]);
      const badByte = firstInvalidUtf8(bytes);
      if (badByte >= 0) throw invalidUtf8(start + badByte);
      text = bytes.toString('utf8');
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new AppError(
        400,
        'malformed_json',
        `event ${no}: not valid JSON (${(error as Error).message})`,
        { line: no },
      );
    }
    events.push(validated(value, no, 'event'));
    const closing = chunk[end];
    at = end + 1;
    if (events.length === BATCH || closing === 0x5d) {
      yield events;
      events = [];
      if (performance.now() - sliceStarted > sliceMs()) {
        await yieldToLoop();
        sliceStarted = performance.now();
      }
    }
    if (closing === 0x5d) break;
  }
  if (await skipSpace()) {
    const badByte = firstInvalidUtf8(chunk.subarray(at));
    if (badByte >= 0) throw invalidUtf8(offset + at + badByte);
    throw malformed(`unexpected bytes after the array, at byte ${offset + at + 1}`);
  }
}
