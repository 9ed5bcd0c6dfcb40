// The live views' hub (app.live): one watch per watched run in this process, polling the
// run's data version in the database, so a write through any replica reaches every viewer
// (docs/live.md). Its streams end before the server closes, so they never hold a shutdown.
import fp from 'fastify-plugin';
import { type LiveHub, liveHub } from '../services/live.service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    live: LiveHub;
  }
}

export default fp<{ pollMs: number }>(
  async (app, opts) => {
    const hub = liveHub(app.services.live, {
      pollMs: opts.pollMs,
      warn: (error, message) => app.log.warn({ err: error }, message),
    });
    app.decorate('live', hub);
    app.addHook('preClose', async () => hub.closeAll());
  },
  { name: 'live', dependencies: ['services'] },
);
