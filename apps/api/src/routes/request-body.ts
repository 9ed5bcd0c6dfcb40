// Request bodies as sent: watched while they arrive (idle timeout, the client going away,
// shutdown), decompressed per Content-Encoding, with one error for each way they can be
// wrong (415 unknown encoding, 400 broken compression, 413 over the limit).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

const INFLATE = { chunkSize: 256 * 1024 };
/** How often a body kept at shutdown (its reader behind) is looked at again. */
const CUT_CHECK_MS = 50;

/**
 * The body of one request on its way in. It ends in an error when the client sends nothing
 * for `idleMs` while the reader waits for it (408), or goes away before the end, so that
 * whatever reads the body (a batch's transaction among them) stops and rolls back at once
 * instead of waiting for bytes that will never come. Time the reader itself takes (a slow
 * COPY holding the body back) is not held against the client: the timer only ends a body
 * when nothing the client sent is waiting here or in the socket's stream.
 */
export class BodyGuard extends Transform {
  /** Bytes received as sent, for Fastify's check against Content-Length. */
  receivedEncodedLength = 0;
  private readonly timer: NodeJS.Timeout;

  private readonly rateTimer: NodeJS.Timeout | undefined;
  /** Bytes received since the rate window began. */
  private windowBytes = 0;
  /** Whether the reader held the body back at some moment of this rate window. */
  private readerBehind = false;

  constructor(
    private readonly raw: IncomingMessage,
    private readonly idleMs: number,
    /** The least a body must bring, on average over each window; rate 0: no minimum. */
    private readonly minRate: { bytesPerS: number; windowMs: number } = {
      bytesPerS: 0,
      windowMs: 0,
    },
  ) {
    super();
    this.timer = setTimeout(() => this.idle(), idleMs);
    if (minRate.bytesPerS > 0)
      this.rateTimer = setInterval(() => this.checkRate(), minRate.windowMs);
    const gone = () => {
      if (!raw.complete) {
        this.destroy(
          new AppError(400, 'body_aborted', 'the client went away before the end of the body'),
        );
      }
    };
    raw.once('aborted', gone);
    raw.once('close', gone);
    raw.once('error', (error) => this.destroy(error));
    raw.pipe(this);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    this.windowBytes += chunk.length;
    this.timer.refresh();
    // Output not yet taken by the reader (the chunk in hand is not pushed yet).
    if (this.readableLength > 0 || this.raw.readableLength > 0) this.readerBehind = true;
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    clearTimeout(this.timer);
    clearInterval(this.rateTimer);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    clearTimeout(this.timer);
    clearInterval(this.rateTimer);
    this.raw.unpipe(this);
    done(error);
  }

  /**
   * Shutdown: ends the body with `error` (a 503 the client may send again) as soon as it
   * waits for the client, now or later. A body that the reader is behind on (a COPY or a
   * transaction holding it back, all the client sent waiting here or in the socket's stream)
   * is an upload in flight, and goes on.
   */
  cut(error: AppError): void {
    const check = () => {
      if (this.destroyed || this.raw.complete) return clearInterval(watch);
      if (this.behind()) return;
      clearInterval(watch);
      this.destroy(error);
    };
    const watch = setInterval(check, CUT_CHECK_MS);
    watch.unref();
    check();
  }

  /** Whether bytes the client sent are waiting for the reader (here or in the socket's stream). */
  private behind(): boolean {
    return this.readableLength > 0 || this.writableLength > 0 || this.raw.readableLength > 0;
  }

  /**
   * The minimum rate: a body that brought less than bytesPerS on average over the window
   * just ended ends in a 408, so that a client sending a byte now and then (never idle
   * long enough for the idle timeout) cannot hold a request, its slot and its bytes for
   * as long as it likes. A window in which the reader held the body back is not counted.
   */
  private checkRate(): void {
    if (this.destroyed || this.raw.complete) return;
    const { bytesPerS, windowMs } = this.minRate;
    const brought = this.windowBytes;
    const excused = this.readerBehind || this.behind();
    this.windowBytes = 0;
    this.readerBehind = false;
    if (excused || brought >= (bytesPerS * windowMs) / 1000) return;
    this.destroy(
      new AppError(
        408,
        'body_too_slow',
        `the body arrived at ${Math.round((brought * 1000) / windowMs)} bytes/s over the last ${windowMs} ms, below the minimum of ${bytesPerS} bytes/s (MESHBENCH_BODY_MIN_RATE)`,
      ),
    );
  }

  private idle(): void {
    if (this.destroyed || this.raw.complete) return;
    if (this.behind()) {
      this.timer.refresh(); // the reader is behind, not the client
      return;
    }
    this.destroy(
      new AppError(
        408,
        'body_timeout',
        `no bytes of the body arrived for ${this.idleMs} ms (MESHBENCH_BODY_TIMEOUT_MS)`,
      ),
    );
  }
}

/**
 * The body, through gunzip or inflate when the client compressed it. `deflate: false` for
 * a protocol that names gzip alone (OTLP/HTTP): deflate is then an unknown encoding (415).
 */
export function decodedBody(
  request: FastifyRequest,
  raw: Readable,
  { deflate = true }: { deflate?: boolean } = {},
): Readable {
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
  // 256 KiB out per step, not zlib's 16 KiB: a quarter of the time for a large batch.
  if (encoding === 'gzip' || encoding === 'x-gzip') return joined(raw, createGunzip(INFLATE));
  if (encoding === 'deflate' && deflate) return joined(raw, createInflate(INFLATE));
  if (encoding !== 'identity') {
    throw new AppError(
      415,
      'unsupported_encoding',
      `Content-Encoding "${encoding}" is not supported; use gzip or none`,
    );
  }
  return raw;
}

/**
 * `from` piped to `to`, each destroyed with the other: an error or an early end on either
 * side reaches the reader of `to`, and a reader that stops early releases `from`.
 * (`from` is the request's BodyGuard, never the socket's own stream, so a reader that
 * stops at 413 does not reset the connection before the reply.)
 */
function joined(from: Readable, to: Transform): Readable {
  pipeline(from, to, () => {});
  // zlib can report a truncated stream after its reader has gone (a 400 already sent):
  // with no listener left, that 'error' would be an uncaught exception, the process's end.
  // The reader still sees every error through its iterator.
  to.on('error', () => {});
  return to;
}

/** The body decoded, and the SHA-256 of its bytes as sent (compressed or not). */
export function hashedBody(
  request: FastifyRequest,
  raw: Readable | undefined,
): { body: Readable; digest: () => string } {
  const hash = createHash('sha256');
  let digest: string | undefined;
  const tap = new Transform({
    transform(chunk, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      digest = hash.digest('hex');
      done();
    },
  });
  const body = decodedBody(request, joined(raw ?? Readable.from([]), tap));
  return { body, digest: () => digest ?? '' };
}
