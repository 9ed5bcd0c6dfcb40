import { health } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get('/health', { schema: { tags: ['health'], response: { 200: health } } }, async () => {
    await app.services.isEmpty(); // proves the database answers
    return { status: 'ok' as const, database: app.database.kind };
  });
};
export default routes;
