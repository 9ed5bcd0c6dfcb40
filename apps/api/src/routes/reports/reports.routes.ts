import { apiError, createdReport, createReportBody, report } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const slugParams = z.object({ slug: z.string().min(1).max(100) });

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;

  app.post(
    '/reports',
    {
      schema: {
        tags: ['reports'],
        description:
          'Freezes what the run page (one run) or the comparison page (2-4 runs, the first the baseline) shows into a report at /r/{slug}, readable by anyone with the link, without a token.',
        body: createReportBody,
        response: { 201: createdReport, 400: apiError, 401: apiError, 404: apiError },
        security: [{ bearer: [] }],
      },
    },
    async (request, reply) =>
      reply.code(201).send(await services.reports.create(request.body, request.principal)),
  );

  app.get(
    '/reports/:slug',
    { schema: { tags: ['reports'], params: slugParams, response: { 200: report, 404: apiError } } },
    async (request) => services.reports.get(request.params.slug),
  );

  app.delete(
    '/reports/:slug',
    {
      schema: {
        tags: ['reports'],
        params: slugParams,
        response: { 204: z.null(), 401: apiError, 404: apiError },
        security: [{ bearer: [] }],
      },
    },
    async (request, reply) => {
      await services.reports.delete(request.params.slug, request.principal);
      return reply.code(204).send(null);
    },
  );
};
export default routes;
