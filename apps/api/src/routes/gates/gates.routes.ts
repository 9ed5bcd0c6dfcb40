// Regression gates: a project's thresholds, a finished run's verdict, and one number across
// runs (history). The verdict itself is made when a run finishes (PATCH /runs/{id}).
import { gatesRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { fromContract } from '../contract-route.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { gates } = app.services;

  app.route({
    ...fromContract(c.gate),
    handler: async (request) => gates.result(request.params.id),
  });

  app.route({
    ...fromContract(c.alerts),
    handler: async (request) =>
      gates.alerts(request.params.id, request.query.state, request.principal),
  });

  app.route({
    ...fromContract(c.updateAlert),
    handler: async (request) =>
      gates.updateAlert(request.params.id, request.body, request.principal),
  });

  app.route({
    ...fromContract(c.significance),
    handler: async (request) =>
      gates.significance(request.params.id, request.query, request.principal),
  });

  app.route({
    ...fromContract(c.loadGate),
    handler: async (request) =>
      app.services.loadGate.evaluate(request.params.id, request.query, request.principal),
  });

  app.route({
    ...fromContract(c.history),
    handler: async (request) => app.services.history.history(request.query, request.principal),
  });

  app.route({
    ...fromContract(c.createThreshold),
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(await gates.createThreshold(request.params.id, request.body, request.principal)),
  });

  app.route({
    ...fromContract(c.thresholds),
    handler: async (request) => gates.thresholds(request.params.id, request.principal),
  });

  app.route({
    ...fromContract(c.deleteThreshold),
    handler: async (request, reply) => {
      await gates.deleteThreshold(request.params.id, request.principal);
      return reply.code(204).send(null);
    },
  });
};
export default routes;
