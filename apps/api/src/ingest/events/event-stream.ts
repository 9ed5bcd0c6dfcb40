// Decodes what the general way reads: a JSON array batch, or one NDJSON line that the
// reader of common observation lines passed on. Every error names the line or event.
import type { ProbeEvent } from '@meshbench/schema';
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

/** How long decoding runs before it lets the event loop serve others (reads among them). */
export const DECODE_SLICE_MS = 20;

/** Lets timers and I/O waiting behind the decoder run. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const malformed = (message: string) =>
  new AppError(400, 'malformed_json', `body is not valid JSON (${message})`);

/** Whether byte c is JSON whitespace. */
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * A JSON array batch: read whole (up to `limit` bytes), then cut into its elements at the
 * top level and each parsed and validated on its own, in slices of DECODE_SLICE_MS between
 * which the event loop runs: a 250 MB array is not one JSON.parse that stalls every other
 * request for seconds.
 */
export async function* decodeJsonArray(
  body: AsyncIterable<Buffer>,
  limit: number,
): AsyncGenerator<NumberedEvent[]> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) throw bodyTooLarge(limit);
    parts.push(chunk);
  }
  const whole = Buffer.concat(parts);
  parts.length = 0;
  const badByte = firstInvalidUtf8(whole);
  if (badByte >= 0) {
    throw new AppError(400, 'invalid_utf8', `body is not valid UTF-8 (byte ${badByte + 1})`);
  }
  let at = 0;
  while (isSpace(whole[at])) at++;
  if (whole[at] !== 0x5b) {
    // Not an array: JSON.parse tells malformed JSON from JSON of another kind.
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
    while (isSpace(whole[at])) at++;
    if (no === 0 && whole[at] === 0x5d) {
      at++;
      break;
    }
    // One element: to the comma or bracket that closes it at the array's level.
    const from = at;
    let depth = 0;
    let inString = false;
    let end = -1;
    for (; at < whole.length; at++) {
      const c = whole[at] as number;
      if (inString) {
        if (c === 0x5c)
          at++; // the escaped byte
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
    if (end < 0) throw malformed('Unexpected end of JSON input');
    no++;
    let value: unknown;
    try {
      value = JSON.parse(whole.toString('utf8', from, end));
    } catch (error) {
      throw new AppError(
        400,
        'malformed_json',
        `event ${no}: not valid JSON (${(error as Error).message})`,
        { line: no },
      );
    }
    events.push(validated(value, no, 'event'));
    const closing = whole[end];
    at = end + 1;
    if (events.length === BATCH || closing === 0x5d) {
      yield events;
      events = [];
      if (performance.now() - sliceStarted > DECODE_SLICE_MS) {
        await yieldToLoop();
        sliceStarted = performance.now();
      }
    }
    if (closing === 0x5d) break;
  }
  while (isSpace(whole[at])) at++;
  if (at < whole.length) throw malformed(`unexpected bytes after the array, at byte ${at + 1}`);
}
