// The runs group, registered from its contracts (runsRoutes in @meshbench/schema).
import { runsRoutes as c } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { propagationCsv } from '../../export/csv.ts';
import { fromContract } from '../contract-route.ts';
import { sendCsv, wantsCsv } from '../csv-reply.ts';

const routes: FastifyPluginAsyncZod = async (app) => {
  const { services } = app;
  /** The run with what is left of finishing it, when anything is (absent once complete). */
  const withFinishing = async <T extends { id: string }>(r: T) => {
    const finishing = await services.finish.finishing(r.id);
    return finishing ? { ...r, finishing } : r;
  };

  app.route({
    ...fromContract(c.create),
    handler: async (request, reply) =>
      reply.code(201).send(await services.runs.create(request.body, request.principal)),
  });

  app.route({
    ...fromContract(c.list),
    handler: async (request) => services.runs.list(request.query, request.principal),
  });

  app.route({
    ...fromContract(c.facets),
    handler: async (request) => services.runs.facets(request.principal),
  });

  app.route({
    ...fromContract(c.headlines),
    handler: async (request) =>
      services.headlines.headlines(request.query.ids.split(','), request.principal),
  });

  app.route({
    ...fromContract(c.get),
    handler: async (request) => {
      const found = await services.runs.get(request.params.id);
      // Whether to ask for the gate at all: a page need not read a 404 for most runs.
      return withFinishing({ ...found, gated: await services.gates.hasResult(found.id) });
    },
  });

  app.route({
    ...fromContract(c.finish),
    handler: async (request) => {
      const finished = await services.finish.finish(request.params.id, request.body);
      return withFinishing(finished);
    },
  });

  app.route({
    ...fromContract(c.delete),
    handler: async (request, reply) => {
      const deleted = await services.runs.delete(request.params.id, request.principal);
      request.log.info({ runDeletion: deleted }, 'run deleted');
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...fromContract(c.changes),
    handler: async (request) => services.propagation.changes(request.params.id),
  });

  app.route({
    ...fromContract(c.runPropagation),
    handler: async (request) => services.churn.runPropagation(request.params.id, request.query),
  });

  app.route({
    ...fromContract(c.propagation),
    handler: async (request, reply) => {
      const { format, ...query } = request.query;
      const result = await services.propagation.propagation(
        request.params.id,
        request.params.changeId,
        query,
      );
      if (wantsCsv(format, request.headers.accept)) {
        return sendCsv(reply, `propagation-${request.params.changeId}.csv`, propagationCsv(result));
      }
      return result;
    },
  });

  app.route({
    ...fromContract(c.stageGap),
    handler: async (request) =>
      services.propagation.stageGap(request.params.id, request.params.changeId, request.query),
  });

  app.route({
    ...fromContract(c.clocks),
    handler: async (request) => services.propagation.clocks(request.params.id),
  });
};
export default routes;
