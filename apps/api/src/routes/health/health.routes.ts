// Health for balancers and orchestrators. /health/live: the process serves (a liveness probe
// restarts a replica that fails it, so it checks nothing else). /health/ready and /health:
// whether this replica should get traffic: the database answers and it is not draining for
// a shutdown; 200, or 503 with the reason.
import { healthRoutes as c, type DemoProgress, HEALTH_TIMEOUT_MS } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { databaseUnavailable, RETRY_AFTER_DATABASE_S } from '../../errors.ts';
import { asAppError } from '../../services/failure.ts';
import { fromContract } from '../contract-route.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on SIGTERM (server.ts): readiness fails while the replica still serves. */
    lifecycle: { draining: boolean; demo: DemoProgress };
  }
}

const routes: FastifyPluginAsyncZod = async (app) => {
  const ready = async (reply: import('fastify').FastifyReply) => {
    if (app.lifecycle.draining) {
      return reply
        .code(503)
        .header('retry-after', String(RETRY_AFTER_DATABASE_S))
        .send({
          statusCode: 503,
          code: 'draining',
          message: 'this replica is shutting down; it finishes the requests it has',
          status: 'draining' as const,
          database: app.database.kind,
        });
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        app.services.isEmpty(), // proves the database answers
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                databaseUnavailable(
                  `the database did not answer within ${HEALTH_TIMEOUT_MS / 1000} s`,
                ),
              ),
            HEALTH_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (error) {
      const unavailable = asAppError(error);
      if (unavailable?.code !== 'database_unavailable') throw error;
      return reply
        .code(503)
        .header('retry-after', String(RETRY_AFTER_DATABASE_S))
        .send({
          statusCode: 503,
          code: unavailable.code,
          message: unavailable.message,
          status: 'unavailable' as const,
          database: app.database.kind,
        });
    } finally {
      clearTimeout(timer);
    }
    return reply.send({ status: 'ok' as const, database: app.database.kind });
  };

  app.route({
    ...fromContract(c.health),
    handler: (_request, reply) => ready(reply),
  });
  app.route({
    ...fromContract(c.ready),
    handler: (_request, reply) => ready(reply),
  });
  app.route({
    ...fromContract(c.live),
    handler: async () => ({ status: 'ok' as const }),
  });
  app.route({
    ...fromContract(c.demo),
    handler: async () => app.lifecycle.demo,
  });
};
export default routes;
