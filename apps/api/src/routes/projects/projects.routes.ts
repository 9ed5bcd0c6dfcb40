import {
  apiError,
  createdToken,
  createProjectBody,
  createTokenBody,
  project,
  projectDetection,
  projectRetention,
  putDetectionBody,
  putRetentionBody,
  tokenInfo,
} from '@meshbench/schema';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const projectParams = z.object({ id: z.string().min(1).describe('project id or name') });
const errors = { 400: apiError, 401: apiError, 403: apiError, 404: apiError };

const routes: FastifyPluginAsyncZod = async (app) => {
  const { projects, retention } = app.services;
  const write = { schema: { security: [{ bearer: [] }] } };

  app.post(
    '/projects',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['projects'],
        description: 'Needs the admin token.',
        body: createProjectBody,
        response: { 201: project, ...errors, 409: apiError },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await projects.create(request.body, request.principal)),
  );

  app.get(
    '/projects',
    {
      schema: {
        tags: ['projects'],
        description: 'The projects whose runs this token (or nobody) may read.',
        response: { 200: z.array(project), 401: apiError },
      },
    },
    async (request) => projects.list(request.principal),
  );

  app.post(
    '/projects/:id/tokens',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['projects'],
        description:
          'A new write token for the project (admin, or a token of the project). The token is in this response only; it is stored as a hash.',
        params: projectParams,
        body: createTokenBody,
        response: { 201: createdToken, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await projects.createToken(request.params.id, request.body.name, request.principal)),
  );

  app.get(
    '/projects/:id/tokens',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['projects'],
        params: projectParams,
        response: { 200: z.array(tokenInfo), ...errors },
      },
    },
    async (request) => projects.tokens(request.params.id, request.principal),
  );

  app.get(
    '/projects/:id/detection',
    {
      schema: {
        tags: ['projects'],
        description:
          "The project's change-point detection settings: what GET /history and the alerts at a run's finish use where a request sets none; the defaults where the project set none.",
        params: projectParams,
        response: { 200: projectDetection, 401: apiError, 404: apiError },
      },
    },
    async (request) => projects.readDetection(request.params.id, request.principal),
  );

  app.put(
    '/projects/:id/detection',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['projects'],
        description:
          "Sets the whole of the project's detection settings (admin, or a token of the project); a field left out goes back to its default, {} restores every default.",
        params: projectParams,
        body: putDetectionBody,
        response: { 200: projectDetection, ...errors },
      },
    },
    async (request) => projects.setDetection(request.params.id, request.body, request.principal),
  );

  app.get(
    '/projects/:id/retention',
    {
      schema: {
        tags: ['projects'],
        description:
          "The project's raw data retention: days a run's raw rows are kept after its last activity (null: for ever), and how many of its runs have had them dropped.",
        params: projectParams,
        response: { 200: projectRetention, 401: apiError, 404: apiError },
      },
    },
    async (request) => retention.read(request.params.id, request.principal),
  );

  app.put(
    '/projects/:id/retention',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['projects'],
        description:
          "Sets the project's raw data retention (admin, or a token of the project). Once a run is done and older than this many days (its finish, else its start, and never before it was stored), a background sweep drops its observations, incidents, lifecycle events, clock reports, metric points and load intervals, keeping its summaries, history values and load results. Runs pinned as a threshold's baseline or in a report, runs still running, and finished runs whose history facts are not current keep everything. null keeps raw rows for ever.",
        params: projectParams,
        body: putRetentionBody,
        response: { 200: projectRetention, ...errors },
      },
    },
    async (request) => retention.set(request.params.id, request.body, request.principal),
  );

  app.delete(
    '/tokens/:id',
    {
      ...write,
      schema: {
        ...write.schema,
        tags: ['projects'],
        description: 'Revokes a token at once.',
        params: z.object({ id: z.uuid() }),
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await projects.revokeToken(request.params.id, request.principal);
      return reply.code(204).send(null);
    },
  );
};
export default routes;
