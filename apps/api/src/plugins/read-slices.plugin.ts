// Reads in progress, for sliced work: while a GET is being answered, long computations
// (an upload's decoding, slot rows, an interval log) yield the event loop every
// BUSY_SLICE_MS instead of every SLICE_MS (domain/slices.ts), so each of the read's query
// answers waits behind a short slice. Counted from the request until its response closes,
// sent or not (a client that goes away).
import fp from 'fastify-plugin';
import { readStarted } from '../domain/slices.ts';

export default fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const done = readStarted();
      reply.raw.once('close', done);
    });
  },
  { name: 'read-slices' },
);
