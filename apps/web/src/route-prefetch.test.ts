import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compareViewQuery } from './features/compare/hooks/use-compare.ts';
import { prefetchRoute } from './route-prefetch.ts';

const RUN_A = '11111111-1111-4111-8111-111111111111';
const RUN_B = '22222222-2222-4222-8222-222222222222';

/** A run as GET /runs/{id} answers it (the schema the client parses it with). */
function run(id: string, changes = 0) {
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
    changes,
  };
}

/** A change as GET /runs/{id}/changes lists it. */
const change = {
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: '2026-02-01T10:00:00.000Z',
  expected: null,
  count: 0,
  repeats: 0,
  beforeChange: 0,
  stages: [],
};

/** Answers what the prefetch asks for as the API would (the parts it reads), and records it. */
function fakeApi({
  changes = 0,
  runAnswered = Promise.resolve(),
}: {
  changes?: number;
  /** The run's own read is answered once this settles (the others at once). */
  runAnswered?: Promise<void>;
} = {}) {
  const asked: string[] = [];
  const fetch = vi.fn(async (input: string | URL | Request) => {
    const url = new URL(String(input), 'http://meshbench.test');
    asked.push(`${url.pathname}${url.search}`);
    if (/^\/api\/v1\/runs\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith('/headlines'))
      await runAnswered;
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    const runMatch = /^\/api\/v1\/runs\/([^/]+)$/.exec(url.pathname);
    if (runMatch && runMatch[1] !== 'headlines') {
      // A share slug answers with the run it names (here always RUN_A).
      const ref = runMatch[1] as string;
      return json(run(ref.startsWith('slug-') ? RUN_A : ref, changes));
    }
    if (/^\/api\/v1\/runs\/[^/]+\/changes$/.test(url.pathname))
      return json(Array.from({ length: changes }, (_, i) => ({ ...change, id: `c${i + 1}` })));
    if (/^\/api\/v1\/runs\/[^/]+\/results\/stages$/.test(url.pathname))
      // No intervals: the view's code is not loaded (it is, for a run with some).
      return json({ intervalMs: 0, series: [], stages: [] });
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
  // Up to 5 s: the stages' prefetch first loads a module (transformed on first import here).
  for (let i = 0; i < 500 && !asked.some((a) => decodeURIComponent(a).startsWith(path)); i++)
    await new Promise((r) => setTimeout(r, 10));
}

afterEach(() => vi.unstubAllGlobals());

describe('the route prefetch', () => {
  it("asks for a run page's headline before the page renders, under the page's key", async () => {
    const api = fakeApi();
    vi.stubGlobal('fetch', api.fetch);
    const client = new QueryClient();
    prefetchRoute(client, `/runs/${RUN_A}`, '');
    await settled(api.asked, '/api/v1/runs/headlines');
    expect(api.asked).toContain(`/api/v1/runs/headlines?ids=${RUN_A}`);
    for (let i = 0; i < 500 && !client.getQueryData(['run-headlines', [RUN_A]]); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(client.getQueryData(['run-headlines', [RUN_A]])).toBeInstanceOf(Map);
    // A run without changes also asks for its stages, after a module import: waited for here,
    // so that the request does not land in the next test's fake API.
    await settled(api.asked, `/api/v1/runs/${RUN_A}/results/stages`);
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

  it("asks for a run without changes' stages, at the address's percentiles, under the view's key", async () => {
    const api = fakeApi();
    vi.stubGlobal('fetch', api.fetch);
    const client = new QueryClient();
    prefetchRoute(client, `/runs/${RUN_A}`, '?percentiles=50,99.9');
    const wanted = `/api/v1/runs/${RUN_A}/results/stages?percentiles=50,99,99.9`;
    await settled(api.asked, wanted);
    expect(api.asked.map(decodeURIComponent)).toContain(wanted);
    for (let i = 0; i < 500 && !client.getQueryData(['load-stages', RUN_A, '50,99,99.9']); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(client.getQueryData(['load-stages', RUN_A, '50,99,99.9'])).toEqual({
      intervalMs: 0,
      series: [],
      stages: [],
    });
  });

  it('does not ask for the stages of a run with changes', async () => {
    const api = fakeApi({ changes: 1 });
    vi.stubGlobal('fetch', api.fetch);
    const client = new QueryClient();
    prefetchRoute(client, `/runs/${RUN_A}`, '');
    await settled(api.asked, '/api/v1/runs/headlines');
    await new Promise((r) => setTimeout(r, 50));
    expect(api.asked.some((a) => a.includes('/results/stages'))).toBe(false);
  });

  it("asks for the headline of a run named by its id before the run's own read is answered", async () => {
    let answer = () => {};
    const api = fakeApi({ runAnswered: new Promise<void>((r) => (answer = r)) });
    vi.stubGlobal('fetch', api.fetch);
    const client = new QueryClient();
    prefetchRoute(client, `/runs/${RUN_A}`, '');
    await settled(api.asked, '/api/v1/runs/headlines');
    expect(api.asked).toContain(`/api/v1/runs/headlines?ids=${RUN_A}`);
    // The run is still unanswered: its stages (which need it) are not asked for yet.
    expect(api.asked.some((a) => a.includes('/results/stages'))).toBe(false);
    answer();
    await settled(api.asked, `/api/v1/runs/${RUN_A}/results/stages`);
  });

  it('waits for the run to say its id when the address holds its share slug', async () => {
    let answer = () => {};
    const api = fakeApi({ runAnswered: new Promise<void>((r) => (answer = r)) });
    vi.stubGlobal('fetch', api.fetch);
    const client = new QueryClient();
    prefetchRoute(client, '/runs/slug-1111', '');
    await settled(api.asked, '/api/v1/runs/slug-1111');
    await new Promise((r) => setTimeout(r, 50));
    expect(api.asked.some((a) => a.startsWith('/api/v1/runs/headlines'))).toBe(false);
    answer();
    await settled(api.asked, '/api/v1/runs/headlines');
    expect(api.asked).toContain(`/api/v1/runs/headlines?ids=${RUN_A}`);
    await settled(api.asked, `/api/v1/runs/${RUN_A}/results/stages`);
  });

  it("asks for a churn run's view of all its changes, at the address's options, under the section's key", async () => {
    const api = fakeApi({ changes: 3 });
    vi.stubGlobal('fetch', api.fetch);
    const client = new QueryClient();
    prefetchRoute(client, `/runs/${RUN_A}`, '?percentiles=50,99.9&withinMs=2500&heatmapScale=log');
    const wanted = `/api/v1/runs/${RUN_A}/propagation?percentiles=50,99.9&withinMs=2500&bins=40&scale=log`;
    await settled(api.asked, wanted);
    expect(api.asked.map(decodeURIComponent)).toContain(wanted);
    // The key the section reads (use-run-propagation.ts), with the page's options.
    expect(
      client.getQueryState([
        'run-propagation',
        RUN_A,
        { percentiles: '50,99.9', withinMs: 2500, bins: 40, scale: 'log' },
      ]),
    ).toBeDefined();
    expect(api.asked.some((a) => a.includes('/results/stages'))).toBe(false);
  });
});
