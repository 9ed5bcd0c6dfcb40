// Who is asking, and whether they may: every request gets a principal from its bearer token
// (the admin token, a project's API token, or none), and is refused at once, before its
// body is read, parsed or validated, when it may not do what it asks:
// - every write (any method but GET/HEAD/OPTIONS) needs a token;
// - every /runs/{id}/... route is held to the run's project (reads too when it is private);
// - every /projects/{id}/... route to the project (its tokens and thresholds are a writer's);
// - creating a project needs the admin token.
// Routes still check what only they can (a threshold's or token's project, a report's runs).
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ANONYMOUS, type Principal, readRefusal, writeRefusal } from '../domain/access.ts';
import { AppError } from '../errors.ts';
import { refuse } from '../services/projects.service.ts';
import { handOn, inRunScope } from '../services/run-lookup.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

const RUN_ROUTE = /^\/api\/v1\/runs\/:id(\/|$)/;
const PROJECT_ROUTE = /^\/api\/v1\/projects\/:id(\/|$)/;
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export default fp(
  async (app) => {
    // Set by the onRequest hook below, before any handler reads it.
    app.decorateRequest('principal', undefined as unknown as { getter: () => Principal });

    async function principalOf(request: FastifyRequest): Promise<Principal> {
      const header = request.headers.authorization;
      if (header === undefined) return ANONYMOUS;
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match)
        throw new AppError(
          401,
          'unauthorized',
          'the Authorization header must be "Bearer <token>"',
        );
      return app.services.projects.authenticate(match[1]);
    }

    // The rest of each request runs where a read's run can be handed on (below), so the
    // handler's service finds it instead of looking it up again.
    app.addHook('onRequest', (_request, _reply, done) => inRunScope(done));

    app.addHook('onRequest', async (request, reply) => {
      request.principal = ANONYMOUS;
      request.principal = await principalOf(request);
      const route = request.routeOptions.url;
      if (route === undefined) return; // no such route: the 404 handler answers
      const reading = READS.has(request.method);
      if (!reading && request.principal.kind === 'anonymous') {
        throw new AppError(401, 'unauthorized', 'writes need "Authorization: Bearer <token>"');
      }
      // An answer this reader had a moment ago (access included) is sent again as it was.
      if (reading && (await app.readCache.serve(request, reply))) return reply;
      const { id } = (request.params ?? {}) as { id?: string };
      if (RUN_ROUTE.test(route) && id) {
        const run = await app.services.runs.find(id);
        if (!run) return; // the route answers 404 itself
        if (reading) handOn(id, run);
        refuse(
          reading
            ? readRefusal(
                request.principal,
                run.projectId,
                await app.services.projects.visibility(run.projectId),
              )
            : writeRefusal(request.principal, run.projectId),
        );
      } else if (PROJECT_ROUTE.test(route) && id) {
        const project = await app.services.projects.find(id);
        if (project) refuse(writeRefusal(request.principal, project.id));
      } else if (route === '/api/v1/projects' && request.method === 'POST') {
        if (request.principal.kind !== 'admin') {
          throw new AppError(403, 'forbidden', 'creating projects needs the admin token');
        }
      }
    });
  },
  { name: 'auth', dependencies: ['services', 'read-cache'] },
);
