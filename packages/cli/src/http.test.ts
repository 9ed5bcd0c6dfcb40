// The CLI's retry rules against a local HTTP server that answers as told.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, http, retryAfterMs } from './http.ts';

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

describe('http', () => {
  let answers: Answer[] = [];
  let seen = 0;
  let url = '';
  const server = createServer((req, res) => {
    seen++;
    const answer = answers.shift();
    req.resume();
    if (answer) answer(req, res);
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  beforeAll(
    () =>
      new Promise<void>((resolve) =>
        server.listen(0, '127.0.0.1', () => {
          url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
          resolve();
        }),
      ),
  );
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const client = (waits: number[], timeoutMs = 2000) =>
    http({
      url,
      retries: 4,
      backoffMs: 100,
      timeoutMs,
      log: () => {},
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
  const status =
    (code: number, headers: Record<string, string> = {}): Answer =>
    (_req, res) =>
      res
        .writeHead(code, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify({ code: `c${code}`, message: `m${code}` }));
  const run = async (
    given: Answer[],
    init: Parameters<ReturnType<typeof http>['request']>[2] = {},
    method = 'POST',
  ) => {
    answers = [...given];
    seen = 0;
    const waits: number[] = [];
    const result = await client(waits)
      .request(method, '/x', init)
      .catch((e: unknown) => e);
    return { result, waits, tries: seen };
  };

  it('never sends a 4xx or a 500 again', async () => {
    for (const code of [400, 401, 404, 409, 413, 422, 500]) {
      const { result, tries } = await run([status(code)], { idempotent: true });
      expect(result, String(code)).toBeInstanceOf(ApiError);
      expect((result as ApiError).status).toBe(code);
      expect((result as ApiError).code).toBe(`c${code}`);
      expect(tries).toBe(1);
    }
  });

  it('sends 429, 502, 503 and 504 again, waiting at least what Retry-After asks', async () => {
    const { result, waits, tries } = await run([
      status(503, { 'retry-after': '2' }),
      status(429, { 'retry-after': '3' }),
      status(502),
      status(504),
    ]);
    expect(result).toEqual({ ok: true });
    expect(tries).toBe(5);
    expect(waits[0]).toBeGreaterThanOrEqual(2000);
    expect(waits[1]).toBeGreaterThanOrEqual(3000);
    // Without Retry-After: the backoff, 100 ms doubling, +-25 %.
    expect(waits[2]).toBeGreaterThanOrEqual(300);
    expect(waits[2]).toBeLessThanOrEqual(500);
  });

  it('gives up after its retries, saying what failed', async () => {
    const { result, tries } = await run(Array.from({ length: 10 }, () => status(503)));
    expect(tries).toBe(5);
    expect((result as ApiError).message).toContain('after 5 tries: 503 m503');
  });

  it('times out a try, and sends again only what is idempotent', async () => {
    const hang: Answer = () => {};
    answers = [hang, hang];
    seen = 0;
    const waits: number[] = [];
    const idempotent = await client(waits, 300)
      .request('POST', '/x', { idempotent: true })
      .catch((e: unknown) => e);
    expect(idempotent).toEqual({ ok: true });
    expect(seen).toBe(3);
    answers = [hang];
    seen = 0;
    const once = await client([], 300)
      .request('POST', '/x')
      .catch((e: unknown) => e);
    expect(once).toBeInstanceOf(ApiError);
    expect((once as ApiError).message).toContain('not sent again');
    expect(seen).toBe(1);
  });

  it('sends anything again when the server could not be reached at all', async () => {
    const waits: number[] = [];
    const closed = createServer();
    const port = await new Promise<number>((resolve) =>
      closed.listen(0, '127.0.0.1', () => {
        const { port } = closed.address() as AddressInfo;
        closed.close(() => resolve(port));
      }),
    );
    const result = await http({
      url: `http://127.0.0.1:${port}`, // nothing listens there now
      retries: 2,
      backoffMs: 1,
      timeoutMs: 1000,
      log: () => {},
      sleep: async (ms) => {
        waits.push(ms);
      },
    })
      .request('POST', '/runs')
      .catch((e: unknown) => e);
    expect((result as ApiError).message).toContain('after 3 tries');
    expect((result as ApiError).message).toContain('ECONNREFUSED');
    expect(waits).toHaveLength(2);
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterMs('5')).toBe(5000);
    const inSeven = retryAfterMs(new Date(Date.now() + 7000).toUTCString()) as number;
    expect(inSeven).toBeGreaterThan(5900); // an HTTP date has whole seconds
    expect(inSeven).toBeLessThanOrEqual(7000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('99999')).toBe(300_000);
  });
});
