// Every request body is read through a BodyGuard: a client that stops sending for
// MESHBENCH_BODY_TIMEOUT_MS, or goes away, ends its request's body with an error at once,
// and so does closing the app (shutdown), so no upload holds a transaction past its client.
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.ts';
import { BodyGuard } from '../routes/request-body.ts';

export interface RequestBodiesOptions {
  idleMs: number;
}

/** Seconds a client is told to wait before sending a body cut by a shutdown again. */
const RETRY_AFTER_SHUTDOWN_S = 2;

export default fp<RequestBodiesOptions>(
  async (app, opts) => {
    const arriving = new Map<BodyGuard, FastifyReply>();

    app.addHook('preParsing', async (request, reply, payload) => {
      const { headers } = request.raw;
      if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined)
        return payload; // no body
      const guard = new BodyGuard(request.raw, opts.idleMs);
      arriving.set(guard, reply);
      guard.once('error', (error) => {
        // The body is incomplete: the connection cannot carry another request.
        reply.header('connection', 'close');
        if (error instanceof AppError && error.statusCode === 503) {
          reply.header('retry-after', String(RETRY_AFTER_SHUTDOWN_S));
        }
      });
      guard.once('close', () => arriving.delete(guard));
      // Past its reply nothing needs the body: whatever is left of it is dropped.
      reply.raw.once('close', () => guard.destroy());
      return guard;
    });

    // A reply sent before its body has arrived (a 401 from a preHandler, say) ends the
    // connection: the rest of the body would otherwise stand in front of the next request.
    app.addHook('onSend', async (request, reply, payload) => {
      if (!request.raw.complete) reply.header('connection', 'close');
      return payload;
    });

    // Closing (SIGTERM, SIGINT): bodies still arriving are cut as soon as they wait for their
    // client, so their batches roll back now rather than when (if ever) their clients
    // finish; requests already received finish, and so do uploads the server is behind on.
    app.addHook('preClose', async () => {
      for (const guard of arriving.keys()) {
        guard.cut(
          new AppError(503, 'shutting_down', 'the server is shutting down; send the request again'),
        );
      }
    });
  },
  { name: 'request-bodies' },
);
