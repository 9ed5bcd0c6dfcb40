// A run's metric series, one series' points, the scale-up timeline.
import { metricsRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { fromContract } from '../contract-route.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;

  app.route({
    ...fromContract(c.series),
    handler: async (request) => services.metrics.series(request.params.id, request.query),
  });

  app.route({
    ...fromContract(c.points),
    handler: async (request) =>
      services.metrics.points(request.params.id, request.params.seriesId, request.query),
  });

  app.route({
    ...fromContract(c.exemplars),
    handler: async (request) =>
      services.metrics.exemplars(request.params.id, request.params.seriesId, request.query),
  });

  app.route({
    ...fromContract(c.timeline),
    handler: async (request) => services.timeline.timeline(request.params.id, request.query),
  });
};
export default routes;
