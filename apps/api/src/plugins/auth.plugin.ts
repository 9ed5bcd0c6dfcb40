// Write access: a Bearer token. With MESHBENCH_ADMIN_TOKEN unset (a person trying it on one
// machine), writes are open; projects and per-project tokens come with their own issue.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    requireWrite: (request: FastifyRequest) => Promise<void>;
  }
}

const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export default fp<{ adminToken: string | undefined }>(
  async (app, opts) => {
    app.decorate('requireWrite', async (request: FastifyRequest) => {
      if (!opts.adminToken) return;
      const header = request.headers.authorization ?? '';
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) {
        throw new AppError(401, 'unauthorized', 'writes need "Authorization: Bearer <token>"');
      }
      if (!same(match[1] as string, opts.adminToken)) {
        throw new AppError(401, 'unauthorized', 'the token is not valid');
      }
    });
  },
  { name: 'auth' },
);
