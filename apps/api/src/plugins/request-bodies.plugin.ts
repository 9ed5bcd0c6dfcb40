// Every request body is read through a BodyGuard: a client that stops sending for
// MESHBENCH_BODY_TIMEOUT_MS, sends slower than MESHBENCH_BODY_MIN_RATE, or goes away, ends its request's body with an error at once,
// and so does closing the app (shutdown), so no upload holds a transaction past its client.
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.ts';
import { heldBytes } from '../routes/held-bytes.ts';
import { BodyGuard } from '../routes/request-body.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The replica's bound on body bytes held in memory by requests in progress. */
    heldBytes: import('../routes/held-bytes.ts').HeldBytes;
  }
  interface FastifyRequest {
    /**
     * Counts `bytes` of this request's body as kept in memory until its reply is done;
     * throws a 503 (Retry-After) when the replica holds MESHBENCH_MAX_HELD_BYTES already.
     */
    holdBytes: (bytes: number) => void;
  }
}

export interface RequestBodiesOptions {
  idleMs: number;
  /** Bytes a second a body must bring on average over each window (0: no minimum). */
  minRate: { bytesPerS: number; windowMs: number };
  /** Bytes of bodies all requests in progress may hold in memory at once. */
  maxHeldBytes: number;
}

/** Seconds a client is told to wait before sending a body cut by a shutdown again. */
const RETRY_AFTER_SHUTDOWN_S = 2;

export default fp<RequestBodiesOptions>(
  async (app, opts) => {
    const arriving = new Map<BodyGuard, FastifyReply>();
    const held = heldBytes(opts.maxHeldBytes);
    app.decorate('heldBytes', held);
    app.decorateRequest('holdBytes', () => {});

    app.addHook('preParsing', async (request, reply, payload) => {
      const { headers } = request.raw;
      if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined)
        return payload; // no body
      const guard = new BodyGuard(request.raw, opts.idleMs, opts.minRate);
      const holder = held.holder();
      request.holdBytes = holder.hold;
      reply.raw.once('close', holder.release);
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
