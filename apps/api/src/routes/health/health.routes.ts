// Health for balancers and orchestrators. /health/live: the process serves (a liveness probe
// restarts a replica that fails it, so it checks nothing else). /health/ready and /health:
// whether this replica should get traffic: the database answers and it is not draining for
// a shutdown; 200, or 503 with the reason.
import {
  type DemoProgress,
  demoProgress,
  health,
  healthUnavailable,
  liveness,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { databaseUnavailable, RETRY_AFTER_DATABASE_S } from '../../errors.ts';
import { asAppError } from '../../services/failure.ts';

/** A database that has not answered in this long is reported unavailable. */
const HEALTH_TIMEOUT_MS = 5_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on SIGTERM (server.ts): readiness fails while the replica still serves. */
    lifecycle: { draining: boolean; demo: DemoProgress };
  }
}

const readyDescription = `200 when the database answers; 503 with \`Retry-After\` and the reason when the replica should get no traffic: \`status\` unavailable (\`code\`: database_unavailable) when the database cannot be reached or has not answered within ${HEALTH_TIMEOUT_MS / 1000} s, as while a PostgreSQL server restarts; \`status\` draining (\`code\`: draining) from SIGTERM until the replica closes (MESHBENCH_DRAIN_MS), while it still serves every other request. The process itself stays up and serves again as soon as the database does.`;

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

  app.get(
    '/demo',
    {
      schema: {
        tags: ['health'],
        summary: 'How far the demo dataset has loaded',
        description:
          "The first start of an empty database posts the demo dataset in the background (unless MESHBENCH_DEMO=0): `loaded` of `total` runs so far; `off` when this process loads none. The web app's runs list shows it while it loads.",
        response: { 200: demoProgress },
      },
    },
    async () => app.lifecycle.demo,
  );

  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        description: `The same as /health/ready. ${readyDescription}`,
        response: { 200: health, 503: healthUnavailable },
      },
    },
    (_request, reply) => ready(reply),
  );
  app.get(
    '/health/ready',
    {
      schema: {
        tags: ['health'],
        description: `Readiness, for a balancer's health check or an orchestrator's readiness probe. ${readyDescription}`,
        response: { 200: health, 503: healthUnavailable },
      },
    },
    (_request, reply) => ready(reply),
  );
  app.get(
    '/health/live',
    {
      schema: {
        tags: ['health'],
        description:
          'Liveness: 200 while the process serves requests, draining or not, database or not (a liveness probe that restarted a replica whose database is away would not bring the database back).',
        response: { 200: liveness },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
};
export default routes;
