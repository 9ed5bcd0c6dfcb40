import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compareViewQuery } from './features/compare/hooks/use-compare.ts';
import { prefetchRoute } from './route-prefetch.ts';

const RUN_A = '11111111-1111-4111-8111-111111111111';
const RUN_B = '22222222-2222-4222-8222-222222222222';

/** A run as GET /runs/{id} answers it (the schema the client parses it with). */
function run(id: string) {
  return {
    id,
    slug: `slug-${id.slice(0, 4)}`,
    projectId: '33333333-3333-4333-8333-333333333333',
    benchmark: 'global-scale',
    scenario: 'endpoint-propagation',
    mesh: { name: 'consul', version: '1.9.5' },
    platform: null,
    topology: {},
    environment: null,
    labels: {},
    status: 'finished',
    startedAt: '2026-02-01T10:00:00.000Z',
    finishedAt: null,
    createdAt: '2026-02-01T10:00:00.000Z',
    changes: 0,
  };
}

/** Answers what the prefetch asks for as the API would (the parts it reads), and records it. */
function fakeApi() {
  const asked: string[] = [];
  const fetch = vi.fn(async (input: string | URL | Request) => {
    const url = new URL(String(input), 'http://meshbench.test');
    asked.push(`${url.pathname}${url.search}`);
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    const runMatch = /^\/api\/v1\/runs\/([^/]+)$/.exec(url.pathname);
    if (runMatch && runMatch[1] !== 'headlines') return json(run(runMatch[1] as string));
    if (/^\/api\/v1\/runs\/[^/]+\/changes$/.test(url.pathname)) return json([]);
    if (url.pathname === '/api/v1/runs/headlines') return json([]);
    if (url.pathname === '/api/v1/compare') {
      const ids = (url.searchParams.get('runs') ?? '').split(',');
      return json({
        runs: ids.map(run),
        changes: ids.map(() => []),
        summaries: [],
        headlines: [],
        comparability: { runs: ids, comparable: true, warnings: [] },
        has: ids.map(() => ({ loadResults: false, timeline: false })),
      });
    }
    return new Response('{}', { status: 404, headers: { 'content-type': 'application/json' } });
  });
  return { asked, fetch };
}

async function settled(asked: string[], path: string) {
  for (let i = 0; i < 50 && !asked.some((a) => a.startsWith(path)); i++)
    await new Promise((r) => setTimeout(r, 10));
}

afterEach(() => vi.unstubAllGlobals());

describe('the route prefetch', () => {
  it("asks for a run page's headline as soon as the run is in, before the page renders", async () => {
    const api = fakeApi();
    vi.stubGlobal('fetch', api.fetch);
    const client = new QueryClient();
    prefetchRoute(client, `/runs/${RUN_A}`, '');
    await settled(api.asked, '/api/v1/runs/headlines');
    expect(api.asked).toContain(`/api/v1/runs/headlines?ids=${RUN_A}`);
    expect(client.getQueryData(['run-headlines', [RUN_A]])).toBeInstanceOf(Map);
  });

  it("asks for the compare page in one read, in the address's order, under the page's key", async () => {
    const api = fakeApi();
    vi.stubGlobal('fetch', api.fetch);
    const client = new QueryClient();
    prefetchRoute(client, '/compare', `?runs=${RUN_B},${RUN_A}`);
    await settled(api.asked, '/api/v1/compare');
    await new Promise((r) => setTimeout(r, 20));
    // One request: not the runs, changes and headlines one by one.
    expect(api.asked.map((a) => decodeURIComponent(a).split('&')[0])).toEqual([
      `/api/v1/compare?runs=${RUN_B},${RUN_A}`,
    ]);
    const key = compareViewQuery([RUN_B, RUN_A]).queryKey;
    expect(client.getQueryData(key)?.runs.map((r) => r.id)).toEqual([RUN_B, RUN_A]);
  });
});
