// Serves the built single-page app: its assets, and index.html for every client route.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';

export default fp<{ root: string | undefined }>(
  async (app, opts) => {
    const root = opts.root;
    if (!root || !existsSync(join(root, 'index.html'))) {
      app.log.warn('the web app is not built (pnpm build); serving the API only');
      return;
    }
    await app.register(fastifyStatic, { root, wildcard: false, index: ['index.html'] });
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const isApi = path.startsWith('/api/') || path.startsWith('/v1/') || path.startsWith('/docs');
      if (request.method === 'GET' && !isApi && !path.includes('.')) {
        return reply.type('text/html').sendFile('index.html');
      }
      return reply.code(404).send({
        statusCode: 404,
        code: 'not_found',
        message: `no route for ${request.method} ${path}`,
      });
    });
  },
  { name: 'web' },
);
