// On Postgres, writes (uploads, and every request that is not a read) hold at most
// MESHBENCH_UPLOAD_CONNECTIONS of the pool's connections at once: each write route's handler
// runs in the database's upload scope, where a query or transaction takes a permit before
// its connection (db upload-connections.ts). Past the cap a write waits its turn, up to the
// pool's connection wait, then answers 503 + Retry-After; reads never wait for a permit, so
// uploads cannot take every connection and starve them.
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export default fp(
  async (app) => {
    const uploads = app.database.uploads;
    if (!uploads) return; // the embedded database: one connection, nothing to share out
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (methods.every((m) => READS.has(m))) return;
      const handler = route.handler as RouteHandlerMethod;
      // Awaited inside the scope: a drizzle query returned as it is runs when awaited. Work
      // the handler leaves running (a run's kept state computed after a batch) stays in it.
      route.handler = async function asUpload(request: FastifyRequest, reply: FastifyReply) {
        return uploads.run(async () => await handler.call(this, request, reply));
      } as typeof route.handler;
    });
  },
  { name: 'upload-connections', dependencies: ['database'] },
);
