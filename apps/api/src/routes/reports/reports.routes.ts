import { reportsRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { fromContract } from '../contract-route.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;

  app.route({
    ...fromContract(c.create),
    handler: async (request, reply) =>
      reply.code(201).send(await services.reports.create(request.body, request.principal)),
  });

  app.route({
    ...fromContract(c.get),
    handler: async (request) => services.reports.get(request.params.slug),
  });

  app.route({
    ...fromContract(c.delete),
    handler: async (request, reply) => {
      await services.reports.delete(request.params.slug, request.principal);
      return reply.code(204).send(null);
    },
  });
};
export default routes;
