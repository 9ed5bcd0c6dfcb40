// A JSON array batch as NDJSON lines (one element a line), and the general way of reading
// one line that the reader of common observation lines passed on. Every error names the
// line or event.
import { isUtf8 } from 'node:buffer';
import type { ProbeEvent } from '@meshbench/schema';
import { yieldToLoop } from '../../domain/slices.ts';
import { AppError } from '../../errors.ts';
import { findBadValue, firstInvalidUtf8, invalidUtf8At } from '../stored-text.ts';
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

/** One NDJSON line's event (`unit`: what the error names it, `event` for an array's). */
export function parseLine(text: string, no: number, unit: 'line' | 'event' = 'line'): ProbeEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError(
      400,
      'malformed_json',
      `${unit} ${no}: not valid JSON (${(error as Error).message})`,
      { line: no },
    );
  }
  return validated(value, no, unit).event;
}

/** Lets timers and I/O waiting behind the decoder run (domain/slices.ts's, for its callers). */
export { yieldToLoop };

const malformed = (message: string) =>
  new AppError(400, 'malformed_json', `body is not valid JSON (${message})`);

/** Whether byte c is JSON whitespace. */
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Where a UTF-8 character cut by the end of `b` begins (b.length when none is). */
function cutCharacterAt(b: Uint8Array): number {
  for (let i = b.length - 1; i >= 0 && i >= b.length - 3; i--) {
    const c = b[i] as number;
    if ((c & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    return b.length - i - 1 < need ? i : b.length;
  }
  return b.length;
}

/**
 * A JSON array batch as NDJSON, as its bytes arrive (up to `limit` bytes): the same bytes
 * with each element on a line of its own, the array's brackets and the commas between its
 * elements turned into spaces and newlines, and line breaks outside strings into spaces
 * (a line break inside a string, which JSON forbids, into another control character that
 * JSON.parse refuses at the same place). Line n is element n, so the NDJSON reader, which
 * reads the common observation line from its bytes without JSON.parse or an object
 * (observation-bytes.ts), names the events by their place. A byte scan and one copy a
 * chunk: parsing and validating each element with JSON.parse and the schema held the event
 * loop four times as long for the same events. Checked here: the array's shape (a body of
 * another kind is parsed whole to the limit to say what it is), empty elements, bytes after
 * the array, and UTF-8 (once a chunk, naming the body's byte). The lines before a fault are
 * handed out before it is thrown, so that a fault in an earlier element is the one named.
 * The body is never held whole: a 250 MB array is neither one JSON.parse nor one copy.
 */
export async function* jsonArrayLines(
  body: AsyncIterable<Buffer>,
  limit: number,
): AsyncGenerator<Buffer> {
  const source = body[Symbol.asyncIterator]();
  const invalidUtf8 = (byte: number) =>
    new AppError(400, 'invalid_utf8', `body is not valid UTF-8 (byte ${byte + 1})`);
  /** The body offset of the next chunk's first byte. */
  let offset = 0;
  /** A character cut by the previous chunk's end, not yet checked or handed out. */
  let cutChar: Buffer = Buffer.alloc(0);
  /** Before the array (0), inside it (1), after it (2). */
  let place = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** Whether the element being read has a byte other than whitespace. */
  let filled = false;
  let no = 0;
  for (;;) {
    const next = await source.next();
    if (next.done) break;
    if (next.value.length === 0) continue;
    if (offset + next.value.length > limit) throw bodyTooLarge(limit);
    // Copied: the lines are written over it, and the caller's buffer is left as it was.
    const bytes =
      cutChar.length === 0 ? Buffer.from(next.value) : Buffer.concat([cutChar, next.value]);
    const start = offset - cutChar.length;
    offset += next.value.length;
    const whole = cutCharacterAt(bytes);
    cutChar = Buffer.from(bytes.subarray(whole));
    let end = whole;
    let fault: AppError | undefined;
    if (!isUtf8(bytes.subarray(0, whole))) {
      end = invalidUtf8At(bytes, 0, whole);
      fault = invalidUtf8(start + end);
    }
    let at = 0;
    if (place === 0) {
      while (at < end && isSpace(bytes[at])) bytes[at++] = 0x20;
      if (at < end) {
        if (bytes[at] !== 0x5b) {
          throw await notAnArray(bytes.subarray(at), start + at, source, offset, limit);
        }
        bytes[at++] = 0x20;
        place = 1;
      }
    }
    for (; place === 1 && at < end; at++) {
      const c = bytes[at] as number;
      if (escaped) escaped = false;
      else if (inString) {
        if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
        else if (c === 0x0a || c === 0x0d) bytes[at] = 0x01;
      } else if (c === 0x0a || c === 0x0d) bytes[at] = 0x20;
      else if (c === 0x2c && depth === 0) {
        if (!filled) {
          fault = emptyElement(no + 1);
          break;
        }
        no++;
        filled = false;
        bytes[at] = 0x0a;
      } else if (c === 0x5d && depth === 0) {
        if (filled) no++;
        else if (no > 0) {
          fault = emptyElement(no + 1);
          break;
        }
        bytes[at] = 0x0a;
        place = 2;
      } else if (!isSpace(c)) {
        filled = true;
        if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) depth--;
      }
    }
    if (place === 2 && !fault) {
      for (; at < end; at++) {
        if (!isSpace(bytes[at])) {
          fault = malformed(`unexpected bytes after the array, at byte ${start + at + 1}`);
          break;
        }
        bytes[at] = 0x20;
      }
    }
    if (fault) {
      // The lines before the fault first (`at`: where the scan stopped).
      if (at > 0) yield bytes.subarray(0, at);
      throw fault;
    }
    yield bytes.subarray(0, whole);
  }
  if (cutChar.length > 0) throw invalidUtf8(offset - cutChar.length);
  if (place !== 2) throw malformed('Unexpected end of JSON input');
}

const emptyElement = (no: number) =>
  new AppError(
    400,
    'malformed_json',
    `event ${no}: not valid JSON (Unexpected end of JSON input)`,
    {
      line: no,
    },
  );

/**
 * A body that does not start as an array, read whole (to the limit): JSON.parse tells
 * malformed JSON from JSON of another kind: the error to answer.
 */
async function notAnArray(
  first: Buffer,
  from: number,
  source: AsyncIterator<Buffer>,
  size: number,
  limit: number,
): Promise<AppError> {
  const parts = [first];
  for (;;) {
    const next = await source.next();
    if (next.done) break;
    size += next.value.length;
    if (size > limit) throw bodyTooLarge(limit);
    parts.push(next.value);
  }
  const whole = Buffer.concat(parts);
  const badByte = firstInvalidUtf8(whole);
  if (badByte >= 0)
    return new AppError(
      400,
      'invalid_utf8',
      `body is not valid UTF-8 (byte ${from + badByte + 1})`,
    );
  try {
    JSON.parse(whole.toString('utf8'));
  } catch (error) {
    return malformed((error as Error).message);
  }
  return new AppError(
    400,
    'malformed_json',
    'an application/json batch must be an array of events',
  );
}
