// A body's chunks as whoever decodes it reads them, whatever carried them in: a compression
// error as a 400, a limit as a 413 as soon as it is passed, the whole body in memory, or its
// first bytes peeked and the whole given back. No socket here (routes/request-body.ts
// watches those), so the services that read a body use these too.
import { AppError } from '../errors.ts';

/** The body's chunks; a compression error becomes a 400 naming it. */
export async function* bodyChunks(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) yield chunk as Buffer;
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_')) {
      throw new AppError(
        400,
        'malformed_body',
        `the body could not be decompressed: ${(error as Error).message}`,
      );
    }
    throw error;
  }
}

/**
 * The whole body in memory, for formats read at once; 413 past `limit` bytes, as soon as
 * they arrive or inflate (a gzip bomb stops at the limit). `setting` names the variable
 * that sets the limit, for the message. `hold(bytes)` is told of each chunk before it is
 * kept, and may refuse it by throwing (a bound on the bytes all requests hold at once);
 * the body is then dropped.
 */
export async function readBody(
  body: AsyncIterable<Buffer>,
  limit: number,
  setting?: string,
  hold?: (bytes: number) => void,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of limitedChunks(body, limit, setting)) {
    size += chunk.length;
    hold?.(chunk.length);
    parts.push(chunk);
  }
  return Buffer.concat(parts, size);
}

function tooLarge(limit: number, setting: string | undefined): AppError {
  return new AppError(
    413,
    'body_too_large',
    `the body is larger than the limit of ${limit} bytes (after decompression)${setting ? `, set by ${setting}` : ''}`,
  );
}

/**
 * The body's chunks for a reader that never holds it whole, with readBody's 413 past
 * `limit` bytes (decompressed), raised as soon as the limit is passed.
 */
export async function* limitedChunks(
  body: AsyncIterable<Buffer>,
  limit: number,
  setting?: string,
): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of bodyChunks(body)) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit, setting);
    yield chunk;
  }
}

/**
 * The body's first `bytes` bytes or more (whole chunks; all of it when shorter), read to
 * tell its kind, and the whole body again from its first byte for whoever reads it next.
 */
export async function peekBody(
  body: AsyncIterable<Buffer>,
  bytes: number,
): Promise<{ head: Buffer; ended: boolean; body: AsyncIterable<Buffer> }> {
  const source = bodyChunks(body);
  const seen: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < bytes) {
    const next = await source.next();
    if (next.done) {
      ended = true;
      break;
    }
    seen.push(next.value);
    size += next.value.length;
  }
  async function* again(): AsyncGenerator<Buffer> {
    yield* seen.splice(0);
    if (!ended) yield* source;
  }
  return { head: Buffer.concat(seen, size), ended, body: again() };
}
