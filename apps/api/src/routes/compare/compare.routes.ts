import { compareRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { fromContract } from '../contract-route.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;

  app.route({
    ...fromContract(c.view),
    handler: async (request) => services.compareView.view(request.query, request.principal),
  });

  app.route({
    ...fromContract(c.comparability),
    handler: async (request) =>
      services.compareView.comparability(
        request.query.runs,
        request.query.same ? [request.query.same] : [],
        request.principal,
      ),
  });

  app.route({
    ...fromContract(c.significance),
    handler: async (request) =>
      services.compareSignificance.ofRuns(
        request.query.runs,
        request.query.changes,
        request.query.percentiles,
        request.principal,
      ),
  });
};
export default routes;
