// An export written by a service, piece by piece, as a reply body with backpressure.
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A body fed by `stream` through the `write` it is given, which waits while the client is
 * slow. A client that stops reading must not hold the export (and its transaction, on the
 * embedded database the only connection) open: its going away ends the export.
 */
export function streamedBody<T extends string | Buffer>(
  request: FastifyRequest,
  reply: FastifyReply,
  stream: (write: (chunk: T) => Promise<void>) => Promise<void>,
  what: string,
): PassThrough {
  const out = new PassThrough();
  let gone = false;
  reply.raw.on('close', () => {
    gone = true;
    out.destroy();
  });
  const write = (chunk: T) =>
    new Promise<void>((resolve, reject) => {
      if (gone || out.destroyed) return reject(new Error('the client went away'));
      if (out.write(chunk)) return resolve();
      const onClose = () => reject(new Error('the client went away'));
      out.once('close', onClose);
      out.once('drain', () => {
        out.off('close', onClose);
        resolve();
      });
    });
  stream(write).then(
    () => out.end(),
    (error) => {
      if (!gone) request.log.error({ err: error }, `${what} failed`);
      out.destroy();
    },
  );
  return out;
}
