// Counts what this replica answered on the upload paths (POST /runs/{id}/events and
// /runs/{id}/results): stored, retried under a known Idempotency-Key, or rejected with a
// 4xx, and the last rejection's message, so that a runner whose uploads fail can be seen
// failing on the Ingest page and in /metrics. A rejection's message can name another
// project's run or data, so the last one is also kept per project, and a caller is shown
// only its own project's (the admin: the replica's last).
import type { UploadCounters } from '@meshbench/schema';
import fp from 'fastify-plugin';
import type { Principal } from '../domain/access.ts';

type Rejection = UploadCounters['lastRejection'];

export interface UploadPath extends UploadCounters {
  /** The last rejection of each project's token (a bounded map, oldest dropped first). */
  lastRejectionByProject: Map<string, Rejection>;
}

declare module 'fastify' {
  interface FastifyInstance {
    uploads: { events: UploadPath; results: UploadPath };
  }
}

/** Projects whose last rejection a replica remembers. */
const PROJECTS_KEPT = 1000;

/** The counters as `principal` may see them: the last rejection only if it is its own. */
export function uploadCountersFor(path: UploadPath, principal: Principal): UploadCounters {
  const { lastRejectionByProject, ...counters } = path;
  const lastRejection =
    principal.kind === 'admin'
      ? counters.lastRejection
      : principal.kind === 'project'
        ? (lastRejectionByProject.get(principal.projectId) ?? null)
        : null;
  return { ...counters, lastRejection };
}

const fresh = (): UploadPath => ({
  stored: 0,
  items: 0,
  duplicates: 0,
  rejected: 0,
  lastRejection: null,
  lastRejectionByProject: new Map(),
});

const EVENTS = '/api/v1/runs/:id/events';
const RESULTS = '/api/v1/runs/:id/results';

function parsed(payload: unknown): Record<string, unknown> | null {
  if (typeof payload !== 'string' || payload.length > 64 * 1024) return null;
  try {
    const value = JSON.parse(payload) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export default fp(
  async (app) => {
    const uploads = { events: fresh(), results: fresh() };
    app.decorate('uploads', uploads);
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.method !== 'POST') return payload;
      const route = request.routeOptions.url;
      const counters =
        route === EVENTS ? uploads.events : route === RESULTS ? uploads.results : null;
      if (!counters) return payload;
      const status = reply.statusCode;
      const body = parsed(payload);
      if (status >= 200 && status < 300) {
        if (body?.duplicate === true) {
          counters.duplicates++;
        } else {
          counters.stored++;
          const n = route === EVENTS ? body?.accepted : body?.imported;
          if (typeof n === 'number') counters.items += n;
        }
      } else if (status >= 400 && status < 500) {
        counters.rejected++;
        const rejection = {
          at: new Date().toISOString(),
          status,
          message: typeof body?.message === 'string' ? body.message : `HTTP ${status}`,
        };
        counters.lastRejection = rejection;
        const principal = request.principal;
        if (principal?.kind === 'project') {
          const byProject = counters.lastRejectionByProject;
          byProject.delete(principal.projectId);
          byProject.set(principal.projectId, rejection);
          if (byProject.size > PROJECTS_KEPT) {
            byProject.delete(byProject.keys().next().value as string);
          }
        }
      }
      return payload;
    });
  },
  { name: 'upload-counters' },
);
