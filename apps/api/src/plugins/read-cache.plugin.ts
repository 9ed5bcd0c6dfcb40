// A short-lived cache of read answers: a run page, a compare or a shared report is read by
// many people at once, and its summaries do not change between two of their requests. An
// answer (GET, 200, JSON or CSV) is kept for MESHBENCH_READ_CACHE_MS per URL, Accept header
// and reader (no token, a project's token, the admin), and served again without touching
// the database. Any write this replica answers (and every StatsD or OTLP flush) empties it,
// so a client reads its own writes here; another replica serves at most that old an answer.
// Each replica has its own: nothing in it is needed by any other.
// Readers of one page that arrive while its answer is being computed wait for that answer
// instead of computing it again each (a report sent to many people, a page on a wall): one
// computation per URL and reader at a time, however many ask. A waiter whose leader's answer
// was not kept (a refusal, a stream) computes its own rather than queueing behind another.
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
  '/api/v1/runs/:id/live',
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
  /**
   * Sends the kept answer and resolves true, or resolves false to go on (after waiting for
   * the same answer being computed for another request, if one is).
   */
  serve(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
  /** Forgets every kept answer (after a write). */
  invalidate(): void;
  readonly stats: {
    hits: number;
    misses: number;
    /** Requests that waited for another's computation of the same answer. */
    coalesced: number;
    entries: number;
    bytes: number;
  };
}

/** The longest a reader waits for another request's computation of its answer. */
const MAX_WAIT_MS = 10_000;

interface Leader {
  done: Promise<void>;
  finish(): void;
}

function leader(): Leader {
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { done, finish };
}

const scopeOf = (p: Principal) =>
  p.kind === 'project' ? `project:${p.projectId}` : p.kind === 'admin' ? 'admin' : 'anonymous';

export default fp<{ ttlMs: number }>(
  async (app, opts) => {
    const entries = new Map<string, Entry>();
    const stats = { hits: 0, misses: 0, coalesced: 0, entries: 0, bytes: 0 };
    // The answers being computed, by key, and the request computing each.
    const computing = new Map<string, Leader>();
    const leads = new WeakMap<FastifyRequest, string>();
    const release = (request: FastifyRequest) => {
      const key = leads.get(request);
      if (key === undefined) return;
      leads.delete(request);
      computing.get(key)?.finish();
      computing.delete(key);
    };
    const waitFor = async (pending: Leader) => {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, MAX_WAIT_MS);
        timer.unref();
      });
      await Promise.race([pending.done, bound]);
      clearTimeout(timer);
    };
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
      async serve(request, reply) {
        if (!cacheable(request)) return false;
        const key = keyOf(request);
        for (let waited = false; ; waited = true) {
          const entry = entries.get(key);
          if (entry && entry.expires > Date.now()) {
            stats.hits++;
            reply.type(entry.type);
            if (entry.disposition) reply.header('content-disposition', entry.disposition);
            reply.header('x-meshbench-cache', 'hit');
            reply.send(entry.body); // a Buffer is sent as it is, past the serializers
            return true;
          }
          if (entry) drop(key, entry);
          const pending = computing.get(key);
          if (!pending || waited) break;
          stats.coalesced++;
          await waitFor(pending);
        }
        stats.misses++;
        startedAt.set(request, generation);
        if (!computing.has(key)) {
          computing.set(key, leader());
          leads.set(request, key);
        }
        return false;
      },
      invalidate() {
        generation++;
        entries.clear();
        stats.bytes = 0;
        stats.entries = 0;
      },
    };
    app.decorate('readCache', cache);

    const keep = (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown => {
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
    };
    // The leader's waiters go on once its answer is kept or known not to be (onSend), or the
    // request ended some other way.
    app.addHook('onResponse', async (request) => release(request));
    app.addHook('onRequestAbort', async (request) => release(request));
    app.addHook('onSend', async (request, reply, payload) => {
      try {
        return keep(request, reply, payload);
      } finally {
        release(request);
      }
    });
  },
  { name: 'read-cache' },
);
