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

/** A JSON array batch: read whole (up to `limit` bytes), then validated event by event. */
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
  const badByte = firstInvalidUtf8(whole);
  if (badByte >= 0) {
    throw new AppError(400, 'invalid_utf8', `body is not valid UTF-8 (byte ${badByte + 1})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(whole.toString('utf8'));
  } catch (error) {
    throw new AppError(
      400,
      'malformed_json',
      `body is not valid JSON (${(error as Error).message})`,
    );
  }
  if (!Array.isArray(value)) {
    throw new AppError(
      400,
      'malformed_json',
      'an application/json batch must be an array of events',
    );
  }
  const BATCH = 1000;
  for (let from = 0; from < value.length; from += BATCH) {
    const events: NumberedEvent[] = [];
    for (let i = from; i < Math.min(value.length, from + BATCH); i++) {
      events.push(validated(value[i], i + 1, 'event'));
    }
    yield events;
  }
}
