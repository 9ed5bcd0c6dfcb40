// Who is asking: every request gets a principal from its bearer token (the admin token, a
// project's API token, or none). Writes need a token; every /runs/{id}/... route is held
// to the run's project, reads included when the project is private.
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ANONYMOUS, type Principal, readRefusal, writeRefusal } from '../domain/access.ts';
import { AppError } from '../errors.ts';
import { refuse } from '../services/projects.service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    requireWrite: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

const RUN_ROUTE = /^\/api\/v1\/runs\/:id(\/|$)/;

export default fp(
  async (app) => {
    // Set by the onRequest hook below, before any handler reads it.
    app.decorateRequest('principal', undefined as unknown as { getter: () => Principal });

    app.addHook('onRequest', async (request) => {
      const header = request.headers.authorization;
      if (header === undefined) {
        request.principal = ANONYMOUS;
        return;
      }
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match)
        throw new AppError(
          401,
          'unauthorized',
          'the Authorization header must be "Bearer <token>"',
        );
      request.principal = await app.services.projects.authenticate(match[1]);
    });

    app.decorate('requireWrite', async (request: FastifyRequest) => {
      if (request.principal.kind === 'anonymous') {
        throw new AppError(401, 'unauthorized', 'writes need "Authorization: Bearer <token>"');
      }
    });

    // One place for run-scoped access: the run's project decides.
    app.addHook('preHandler', async (request) => {
      const route = request.routeOptions.url ?? '';
      if (!RUN_ROUTE.test(route)) return;
      const { id } = request.params as { id?: string };
      if (!id) return;
      const run = await app.services.runs.find(id);
      if (!run) return; // the route answers 404 itself
      const reading = request.method === 'GET' || request.method === 'HEAD';
      if (reading) {
        refuse(
          readRefusal(
            request.principal,
            run.projectId,
            await app.services.projects.visibility(run.projectId),
          ),
        );
      } else {
        refuse(writeRefusal(request.principal, run.projectId));
      }
    });
  },
  { name: 'auth', dependencies: ['services'] },
);
