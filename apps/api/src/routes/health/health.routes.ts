// GET /health: whether this replica can serve, the database answering included. A load
// balancer or an orchestrator's probe reads the status: 200, or 503 with the reason.
import { health, healthUnavailable } from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { asAppError, databaseUnavailable, RETRY_AFTER_DATABASE_S } from '../../errors.ts';

/** A database that has not answered in this long is reported unavailable. */
const HEALTH_TIMEOUT_MS = 5_000;

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        description: `200 when the database answers; 503 with \`Retry-After\` and the reason (\`code\`: database_unavailable) when it cannot be reached or has not answered within ${HEALTH_TIMEOUT_MS / 1000} s, as while a PostgreSQL server restarts. The process itself stays up and serves again as soon as the database does.`,
        response: { 200: health, 503: healthUnavailable },
      },
    },
    async (_request, reply) => {
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
      return { status: 'ok' as const, database: app.database.kind };
    },
  );
};
export default routes;
