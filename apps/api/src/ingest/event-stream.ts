// Decodes a batch body (NDJSON or a JSON array) into numbered, validated probe events.
import { AppError } from '../errors.ts';
import type { NumberedEvent } from './batch-assembler.ts';
import { BodyTooLargeError, splitLines } from './lines.ts';
import { readObservationLine } from './observation-line.ts';
import { checkEvent, isProblem } from './probe-events.ts';

export type BatchFormat = 'ndjson' | 'json';

function validated(value: unknown, line: number, unit: string): NumberedEvent {
  const checked = checkEvent(value);
  if (isProblem(checked)) {
    throw new AppError(400, 'invalid_event', `${unit} ${line}: ${checked.message}`, {
      line,
      ...(checked.field ? { field: checked.field } : {}),
    });
  }
  return { line, event: checked };
}

export async function* decodeEvents(
  body: AsyncIterable<Buffer>,
  format: BatchFormat,
  limit: number,
): AsyncGenerator<NumberedEvent[]> {
  try {
    if (format === 'ndjson') {
      for await (const lines of splitLines(body, limit)) {
        const events: NumberedEvent[] = new Array(lines.length);
        for (let i = 0; i < lines.length; i++) {
          const { no, text } = lines[i] as (typeof lines)[number];
          const observation = readObservationLine(text);
          if (observation) {
            events[i] = { line: no, event: observation };
            continue;
          }
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
          events[i] = validated(value, no, 'line');
        }
        yield events;
      }
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limit) throw new BodyTooLargeError(limit);
      parts.push(chunk);
    }
    let value: unknown;
    try {
      value = JSON.parse(Buffer.concat(parts).toString('utf8'));
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
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new AppError(
        413,
        'body_too_large',
        `the batch is larger than the limit of ${limit} bytes (after decompression); split it`,
      );
    }
    throw error;
  }
}
