// The read cache computes one answer per URL and reader at a time: readers that arrive while
// it is being computed wait for it (a report opened by many people at once costs one
// computation), and a waiter whose leader's answer was not kept computes its own at once.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ANONYMOUS, type Principal } from '../domain/access.ts';
import readCachePlugin from './read-cache.plugin.ts';

/** An app with the cache and one slow route whose computations are counted and released by hand. */
async function appWithSlowRoute(status = 200) {
  const app = Fastify();
  app.decorateRequest('principal', undefined as unknown as { getter: () => Principal });
  await app.register(readCachePlugin, { ttlMs: 60_000 });
  app.addHook('onRequest', async (request, reply) => {
    request.principal = ANONYMOUS;
    if (await app.readCache.serve(request, reply)) return reply;
  });
  let computations = 0;
  const gates: Array<() => void> = [];
  app.get('/api/v1/slow', async (_request, reply) => {
    computations++;
    await new Promise<void>((resolve) => gates.push(resolve));
    return reply.code(status).send({ computed: computations });
  });
  await app.ready();
  return {
    app,
    computations: () => computations,
    /** Lets every computation started so far answer. */
    release: () => {
      for (const open of gates.splice(0)) open();
    },
    started: async (n: number) => {
      for (let i = 0; i < 200 && computations < n; i++) await new Promise((r) => setTimeout(r, 5));
      return computations;
    },
  };
}

describe('the read cache under concurrent readers of one answer', () => {
  it('computes the answer once for ten readers who ask while it is computed', async () => {
    const slow = await appWithSlowRoute();
    const answers = Array.from({ length: 10 }, () => slow.app.inject('/api/v1/slow'));
    expect(await slow.started(1)).toBe(1);
    // Give the other nine time to arrive: none may start a computation of its own.
    await new Promise((r) => setTimeout(r, 50));
    expect(slow.computations()).toBe(1);
    slow.release();
    const replies = await Promise.all(answers);
    expect(replies.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(replies.map((r) => r.json().computed)).toEqual(Array(10).fill(1));
    expect(replies.filter((r) => r.headers['x-meshbench-cache'] === 'hit')).toHaveLength(9);
    expect(slow.app.readCache.stats.coalesced).toBe(9);
    await slow.app.close();
  });

  it('lets the waiters compute their own when the leader answer is not kept (no queue)', async () => {
    const slow = await appWithSlowRoute(503);
    const answers = Array.from({ length: 4 }, () => slow.app.inject('/api/v1/slow'));
    expect(await slow.started(1)).toBe(1);
    slow.release();
    // The three waiters go on together once the leader's 503 is sent: three computations at
    // once, not one after another.
    expect(await slow.started(4)).toBe(4);
    slow.release();
    const replies = await Promise.all(answers);
    expect(replies.map((r) => r.statusCode)).toEqual(Array(4).fill(503));
    expect(replies.filter((r) => r.headers['x-meshbench-cache'] === 'hit')).toHaveLength(0);
    await slow.app.close();
  });

  it('keeps no waiter past a write that lands while the answer is computed', async () => {
    const slow = await appWithSlowRoute();
    const first = slow.app.inject('/api/v1/slow');
    expect(await slow.started(1)).toBe(1);
    slow.app.readCache.invalidate();
    const second = slow.app.inject('/api/v1/slow');
    await new Promise((r) => setTimeout(r, 20));
    slow.release();
    expect((await first).statusCode).toBe(200);
    // The first answer was computed across the write: not kept, so the waiter computes anew.
    expect(await slow.started(2)).toBe(2);
    slow.release();
    const again = await second;
    expect(again.json().computed).toBe(2);
    expect(again.headers['x-meshbench-cache']).toBeUndefined();
    await slow.app.close();
  });
});
