// An export's body (OTLP, Prometheus remote write) read within the replica's bounds: a slot
// for it to arrive in, held at most `deadlineMs` (408 past it), and its bytes counted against
// the service's buffer and the request's share of the bytes all bodies may hold.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { BodyGuard } from './request-body.ts';

export interface BodyAdmission {
  /** A slot for a body arriving; the function gives it back. */
  admitBody(): () => void;
  buffer(bytes: number): void;
  unbuffer(bytes: number): void;
}

/**
 * Reads the body with `read` (which calls `hold` for each chunk it keeps). Returns the body
 * and the bytes held, for the caller to `unbuffer` once its work is done; on failure they are
 * given back here. A client that goes away mid-body is a 400 `aborted`.
 */
export async function readAdmittedBody(
  request: FastifyRequest,
  admission: BodyAdmission,
  deadlineMs: number,
  read: (hold: (bytes: number) => void) => Promise<Buffer>,
): Promise<{ body: Buffer; held: number }> {
  const arriving = admission.admitBody();
  let held = 0;
  const hold = (bytes: number) => {
    admission.buffer(bytes);
    held += bytes;
    try {
      request.holdBytes(bytes);
    } catch (error) {
      admission.unbuffer(bytes);
      held -= bytes;
      throw error;
    }
  };
  const deadline = setTimeout(() => {
    if (request.body instanceof BodyGuard)
      request.body.cut(
        new AppError(
          408,
          'body_timeout',
          `the body did not arrive within ${deadlineMs} ms (MESHBENCH_OTLP_BODY_DEADLINE_MS)`,
        ),
      );
  }, deadlineMs);
  try {
    return { body: await read(hold), held };
  } catch (error) {
    admission.unbuffer(held);
    if (error instanceof AppError) throw error;
    // The sender gave up mid-body (a timeout, a restart): its business, not a fault here.
    const code = (error as { code?: string }).code ?? '';
    if (code === 'ECONNRESET' || (error as Error).message === 'aborted') {
      throw new AppError(400, 'aborted', 'the client closed the request before its body ended');
    }
    throw error;
  } finally {
    clearTimeout(deadline);
    arriving();
  }
}
