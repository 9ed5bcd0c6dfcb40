import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_SLICE_MS, SLICE_MS, sliceMs } from '../domain/slices.ts';
import readSlicesPlugin from './read-slices.plugin.ts';

describe('read-slices plugin', () => {
  const apps: ReturnType<typeof Fastify>[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  async function appWith() {
    const app = Fastify();
    apps.push(app);
    await app.register(readSlicesPlugin);
    app.get('/slice', async () => ({ ms: sliceMs() }));
    app.post('/slice', async () => ({ ms: sliceMs() }));
    app.get('/fails', async () => {
      throw new Error('no');
    });
    return app;
  }

  it('shortens slices while a GET is answered, not while a POST is, and ends with the response', async () => {
    const app = await appWith();
    expect((await app.inject({ method: 'GET', url: '/slice' })).json()).toEqual({
      ms: BUSY_SLICE_MS,
    });
    expect((await app.inject({ method: 'POST', url: '/slice' })).json()).toEqual({ ms: SLICE_MS });
    expect((await app.inject({ method: 'GET', url: '/fails' })).statusCode).toBe(500);
    expect(sliceMs()).toBe(SLICE_MS);
  });

  it('ends a read whose client went away before its answer', async () => {
    const app = await appWith();
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => {
      entered = r;
    });
    app.get('/slow', async () => {
      entered();
      await new Promise((r) => setTimeout(r, 200));
      return { ok: true };
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const aborted = new AbortController();
    const request = fetch(`${url}/slow`, { signal: aborted.signal }).catch(() => null);
    await inHandler;
    expect(sliceMs()).toBe(BUSY_SLICE_MS);
    aborted.abort();
    await request;
    await new Promise((r) => setTimeout(r, 400));
    expect(sliceMs()).toBe(SLICE_MS);
  });
});
