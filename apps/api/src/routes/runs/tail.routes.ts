// The tail of a change: why its slowest proxies were slow, as JSON or as a CSV causes table,
// and which attribute values set them apart.
import { tailRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tailCsv } from '../../export/csv.ts';
import { fromContract } from '../contract-route.ts';
import { sendCsv, wantsCsv } from '../csv-reply.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;

  app.route({
    ...fromContract(c.attribution),
    handler: async (request) =>
      services.tail.attribution(request.params.id, request.params.changeId, request.query),
  });

  app.route({
    ...fromContract(c.tail),
    handler: async (request, reply) => {
      const { format, ...query } = request.query;
      const result = await services.tail.tail(request.params.id, request.params.changeId, query);
      if (wantsCsv(format, request.headers.accept)) {
        return sendCsv(reply, `tail-${request.params.changeId}.csv`, tailCsv(result));
      }
      return result;
    },
  });
};
export default routes;
