import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createClient, paths } from './client.ts';
import { ApiRequestError, InvalidResponseError } from './errors.ts';
import { queryString } from './routes.ts';
import { fetchTransport, type SendInit } from './transport.ts';

const RUN = {
  id: '6f1c1c1e-3f0e-4b7a-9f55-2d8c8c1d2a01',
  slug: 'a1',
  projectId: '00000000-0000-4000-8000-000000000001',
  benchmark: 'global-scale',
  scenario: 'endpoint-propagation',
  mesh: { name: 'consul', version: '1.9.5' },
  platform: null,
  topology: { nodes: 50 },
  environment: null,
  labels: {},
  status: 'running',
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  changes: 0,
};

/** A fetch that answers as told and keeps what it was asked. */
function fakeFetch(status: number, body: unknown, statusText = '') {
  const seen: { url: string; init: RequestInit }[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(url), init: init ?? {} });
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return new Response(status === 204 ? null : text, { status, statusText });
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

const clientOf = (status: number, body: unknown, statusText?: string) => {
  const f = fakeFetch(status, body, statusText);
  return {
    client: createClient(fetchTransport({ url: 'http://mb.test/', token: 't0', fetch: f.fetch })),
    seen: f.seen,
  };
};

describe('client', () => {
  it('calls the route under /api/v1 with the token and parses the answer', async () => {
    const { client, seen } = clientOf(200, { runs: [RUN], total: 1 });
    const list = await client.runs.list({ mesh: 'consul', label: ['a:1', 'b:2'], limit: 5 });
    expect(list.runs[0]?.mesh.version).toBe('1.9.5');
    expect(seen[0]?.url).toBe(
      'http://mb.test/api/v1/runs?mesh=consul&label=a%3A1&label=b%3A2&limit=5',
    );
    expect(seen[0]?.init.method).toBe('GET');
    expect((seen[0]!.init.headers as Record<string, string>).authorization).toBe('Bearer t0');
  });

  it('turns a refusal into an ApiRequestError carrying the API error body', async () => {
    const { client } = clientOf(404, { statusCode: 404, code: 'not_found', message: 'no run x' });
    const error = await client.runs.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'no run x' });
    expect((error as ApiRequestError).body).toEqual({
      statusCode: 404,
      code: 'not_found',
      message: 'no run x',
    });
  });

  it('names the status when a refusal has no error body', async () => {
    const { client } = clientOf(502, '<html>bad gateway</html>', 'Bad Gateway');
    const error = await client.runs.get('x').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: 'http_error', message: '502 Bad Gateway' });
  });

  it('refuses an answer that does not match its schema, naming the route and the path', async () => {
    const { client } = clientOf(200, { runs: [{ ...RUN, id: 42 }], total: 1 });
    const error = await client.runs.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    const invalid = error as InvalidResponseError;
    expect(invalid.code).toBe('invalid_response');
    expect(invalid.route).toBe('GET /runs');
    expect(invalid.path).toEqual(['runs', 0, 'id']);
    expect(invalid.message).toContain('GET /runs');
    expect(invalid.message).toContain('runs.0.id');
  });

  it('refuses a body that is not JSON as an invalid response of its route', async () => {
    const { client } = clientOf(200, 'not json');
    const error = await client.runs.facets().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).route).toBe('GET /runs/facets');
  });

  it('takes an empty 204 as null', async () => {
    const { client, seen } = clientOf(204, '');
    await expect(client.projects.revokeToken('t/1')).resolves.toBeNull();
    expect(seen[0]?.url).toBe('http://mb.test/api/v1/tokens/t%2F1');
    expect(seen[0]?.init.method).toBe('DELETE');
  });

  it('says so when the API cannot be reached, and passes an abort on as it is', async () => {
    const down = createClient(
      fetchTransport({
        url: '',
        fetch: async () => {
          throw new TypeError('fetch failed');
        },
      }),
    );
    await expect(down.health()).rejects.toMatchObject({ status: 0, code: 'network_error' });
    const controller = new AbortController();
    controller.abort();
    const aborted = createClient(
      fetchTransport({
        url: '',
        fetch: async () => {
          throw new DOMException('aborted', 'AbortError');
        },
      }),
    );
    await expect(aborted.health({ signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('posts a raw body with its headers; a call token replaces the transport one', async () => {
    const sent: { method: string; path: string; init: SendInit }[] = [];
    const client = createClient({
      async request(method, path, init = {}) {
        sent.push({ method, path, init });
        return { accepted: 3, duplicate: false };
      },
    });
    const answer = await client.runs.postEvents(
      'r1',
      {
        body: 'a\nb\nc\n',
        contentEncoding: 'gzip',
        query: { source: 'abc', lines: '1-3' },
        idempotencyKey: 'abc:1-3',
      },
      { token: 't1' },
    );
    expect(answer).toEqual({ accepted: 3, duplicate: false });
    expect(sent[0]).toMatchObject({
      method: 'POST',
      path: '/runs/r1/events?source=abc&lines=1-3',
      init: {
        body: 'a\nb\nc\n',
        idempotent: true,
        headers: {
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          'idempotency-key': 'abc:1-3',
          authorization: 'Bearer t1',
        },
      },
    });
  });
});

describe('paths', () => {
  it('keeps the order of the query, leaves out what is unset and escapes ids', () => {
    expect(queryString({})).toBe('');
    expect(queryString({ a: undefined, b: '', c: 0, d: 'x y', e: ['1', '2'] })).toBe(
      '?c=0&d=x+y&e=1&e=2',
    );
    expect(paths.propagation('r/1', 'c 1', { percentiles: '50,99', bins: 60 })).toBe(
      '/runs/r%2F1/changes/c%201/propagation?percentiles=50%2C99&bins=60',
    );
  });
});

describe('coverage', () => {
  it('has a call for every route of docs/openapi.json that answers JSON', async () => {
    const doc = JSON.parse(
      readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'),
    ) as { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([, op]) => {
            // JSON answers, or only "204 No Content"; not a stream that may also end in a 204.
            const ok = Object.entries(op.responses ?? {}).filter(([code]) => code.startsWith('2'));
            return (
              ok.some(
                ([code, r]) => code !== '204' && JSON.stringify(r).includes('application/json'),
              ) ||
              (ok.length > 0 && ok.every(([code]) => code === '204'))
            );
          })
          .map(([method]) => `${method.toUpperCase()} ${path.slice('/api/v1'.length)}`),
      )
      .sort();
    // Every call, made against a transport that answers nothing: each names its route.
    const client = createClient({ request: async () => undefined });
    const called: string[] = [];
    const visit = async (value: unknown): Promise<void> => {
      if (typeof value === 'function') {
        const error = await value('x', 'y', {}).catch((e: unknown) => e);
        if (error instanceof InvalidResponseError) called.push(error.route);
      } else if (value && typeof value === 'object') {
        for (const v of Object.values(value)) await visit(v);
      }
    };
    await visit(client);
    expect(documented.length).toBeGreaterThanOrEqual(30);
    expect([...new Set(called)].sort()).toEqual(documented);
  });
});
