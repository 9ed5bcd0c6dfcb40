import { projectsRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { fromContract } from '../contract-route.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { projects, retention } = app.services;

  app.route({
    ...fromContract(c.create),
    handler: async (request, reply) =>
      reply.code(201).send(await projects.create(request.body, request.principal)),
  });

  app.route({
    ...fromContract(c.list),
    handler: async (request) => projects.list(request.principal),
  });

  app.route({
    ...fromContract(c.createToken),
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(await projects.createToken(request.params.id, request.body.name, request.principal)),
  });

  app.route({
    ...fromContract(c.tokens),
    handler: async (request) => projects.tokens(request.params.id, request.principal),
  });

  app.route({
    ...fromContract(c.detection),
    handler: async (request) => projects.readDetection(request.params.id, request.principal),
  });

  app.route({
    ...fromContract(c.setDetection),
    handler: async (request) =>
      projects.setDetection(request.params.id, request.body, request.principal),
  });

  app.route({
    ...fromContract(c.retention),
    handler: async (request) => retention.read(request.params.id, request.principal),
  });

  app.route({
    ...fromContract(c.setRetention),
    handler: async (request) => retention.set(request.params.id, request.body, request.principal),
  });

  app.route({
    ...fromContract(c.revokeToken),
    handler: async (request, reply) => {
      await projects.revokeToken(request.params.id, request.principal);
      return reply.code(204).send(null);
    },
  });
};
export default routes;
