// The OpenAPI document, generated from the zod schemas of the routes, at /docs/json; a light
// page of every operation at /docs (api-docs-page.ts) and swagger-ui at /docs/try.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { apiDocsHtml } from './api-docs-page.ts';

export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        info: {
          title: 'meshbench API',
          version: '1',
          description:
            'Results service for service-mesh benchmarks: runs, probe events, propagation summaries.',
        },
        components: {
          securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        },
      },
      transform: jsonSchemaTransform,
    });
    await app.register(swaggerUi, { routePrefix: '/docs/try' });
    // The document where it has always been (the CLI, scripts/openapi.ts and tests read it).
    app.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
    // Written once, at the first visit: the routes are all registered by then.
    let page: string | undefined;
    app.get('/docs', { schema: { hide: true } }, async (_request, reply) => {
      page ??= apiDocsHtml(app.swagger() as Parameters<typeof apiDocsHtml>[0]);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
    });
  },
  { name: 'openapi' },
);
