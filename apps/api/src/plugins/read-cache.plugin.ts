// A short-lived cache of read answers: a run page, a compare or a shared report is read by
// many people at once, and its summaries do not change between two of their requests. An
// answer (GET, 200, JSON or CSV) is kept for MESHBENCH_READ_CACHE_MS per URL, Accept header
// and reader (no token, a project's token, the admin), and served again without touching
// the database. Any write this replica answers (and every StatsD or OTLP flush) empties it,
// so a client reads its own writes here; another replica serves at most that old an answer.
// Each replica has its own: nothing in it is needed by any other.
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal } from '../domain/access.ts';

declare module 'fastify' {
  interface FastifyInstance {
    readCache: ReadCache;
  }
}

/** Answers that change on every read or are not one page's data: never kept. */
const UNCACHED = new Set([
  '/api/v1/health',
  '/api/v1/ingest/stats',
  '/api/v1/statsd/stats',
  '/api/v1/runs/:id/events',
]);
const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;

interface Entry {
  expires: number;
  type: string;
  disposition: string | undefined;
  body: Buffer;
}

export interface ReadCache {
  /** Sends the kept answer and returns true, or returns false to go on. */
  serve(request: FastifyRequest, reply: FastifyReply): boolean;
  /** Forgets every kept answer (after a write). */
  invalidate(): void;
  readonly stats: { hits: number; misses: number; entries: number; bytes: number };
}

const scopeOf = (p: Principal) =>
  p.kind === 'project' ? `project:${p.projectId}` : p.kind === 'admin' ? 'admin' : 'anonymous';

export default fp<{ ttlMs: number }>(
  async (app, opts) => {
    const entries = new Map<string, Entry>();
    const stats = { hits: 0, misses: 0, entries: 0, bytes: 0 };
    // Bumped by every invalidation: an answer computed while a write landed is not kept,
    // since it may show the data from before the write.
    let generation = 0;
    const startedAt = new WeakMap<FastifyRequest, number>();
    const keyOf = (request: FastifyRequest) =>
      `${scopeOf(request.principal)} ${request.headers.accept ?? ''} ${request.url}`;
    const cacheable = (request: FastifyRequest) =>
      opts.ttlMs > 0 &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      request.url.startsWith('/api/v1/') &&
      request.routeOptions.url !== undefined &&
      !UNCACHED.has(request.routeOptions.url);

    const drop = (key: string, entry: Entry) => {
      entries.delete(key);
      stats.bytes -= entry.body.length;
      stats.entries = entries.size;
    };
    const cache: ReadCache = {
      stats,
      serve(request, reply) {
        if (!cacheable(request)) return false;
        const key = keyOf(request);
        const entry = entries.get(key);
        if (!entry || entry.expires <= Date.now()) {
          if (entry) drop(key, entry);
          stats.misses++;
          startedAt.set(request, generation);
          return false;
        }
        stats.hits++;
        reply.type(entry.type);
        if (entry.disposition) reply.header('content-disposition', entry.disposition);
        reply.header('x-meshbench-cache', 'hit');
        reply.send(entry.body); // a Buffer is sent as it is, past the serializers
        return true;
      },
      invalidate() {
        generation++;
        entries.clear();
        stats.bytes = 0;
        stats.entries = 0;
      },
    };
    app.decorate('readCache', cache);

    app.addHook('onSend', async (request, reply, payload) => {
      // A write this replica answers may change any read: forget them all (cheap, and
      // safe), before its client can see the answer and read again.
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        if (reply.statusCode < 300) cache.invalidate();
        return payload;
      }
      if (
        reply.statusCode !== 200 ||
        startedAt.get(request) !== generation ||
        !cacheable(request) ||
        reply.getHeader('x-meshbench-cache') === 'hit'
      ) {
        return payload;
      }
      const body =
        typeof payload === 'string'
          ? Buffer.from(payload)
          : Buffer.isBuffer(payload)
            ? payload
            : null; // a stream: not kept
      if (!body || body.length > MAX_ENTRY_BYTES) return payload;
      while (stats.bytes + body.length > MAX_TOTAL_BYTES && entries.size > 0) {
        const [oldestKey, oldest] = entries.entries().next().value as [string, Entry];
        drop(oldestKey, oldest);
      }
      const key = keyOf(request);
      const previous = entries.get(key);
      if (previous) drop(key, previous);
      const disposition = reply.getHeader('content-disposition');
      entries.set(key, {
        expires: Date.now() + opts.ttlMs,
        type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        disposition: disposition === undefined ? undefined : String(disposition),
        body,
      });
      stats.bytes += body.length;
      stats.entries = entries.size;
      return payload;
    });
  },
  { name: 'read-cache' },
);
