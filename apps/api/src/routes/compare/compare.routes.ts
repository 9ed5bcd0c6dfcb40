import { apiError, comparability, comparabilityQuery } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;

  app.get(
    '/compare/comparability',
    {
      schema: {
        tags: ['compare'],
        description:
          "Whether the compared runs can be held against each other, as the compare page's warnings and a gate's not-comparable verdict say it: different topology, a different mesh version when pinned (same=mesh.version), a load point more than 5 % short of its target rate or with its generator saturated (either run), percentiles exact in one run and estimated in the other. Each warning names the numbers.",
        querystring: comparabilityQuery,
        response: {
          200: comparability,
          400: apiError,
          401: apiError,
          403: apiError,
          404: apiError,
        },
      },
    },
    async (request) =>
      services.comparability.ofRuns(
        request.query.runs,
        request.query.same ? [request.query.same] : [],
        request.principal,
      ),
  );
};
export default routes;
