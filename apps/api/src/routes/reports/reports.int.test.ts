import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createdReport,
  propagation,
  report as reportAnswer,
  run,
  runFacets,
  runList,
  timeline,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  backends,
  createRun,
  jsonBody,
  ndjson,
  postEvents,
  useServer,
} from '../../test/harness.ts';

const TOKEN = 'a-long-enough-admin-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const webRoot = mkdtempSync(join(tmpdir(), 'meshbench-web-'));
writeFileSync(
  join(webRoot, 'index.html'),
  '<html><head><title>meshbench</title></head><body><div id="root"></div></body></html>',
);

const T0 = Date.parse('2026-02-01T10:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** 10 proxies expected; 9 apply at 100..900 ms, one at 3 s after a reconnect. */
function batch() {
  const lines: unknown[] = [
    {
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: at(0),
      expected: 10,
    },
    { type: 'incident', kind: 'reconnect', node: 'n9', from: at(50), to: at(2900) },
  ];
  for (let i = 1; i <= 9; i++)
    lines.push({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      node: `n${i}`,
      at: at(i * 100),
    });
  lines.push({ type: 'observation', change: 'c1', proxy: 'p10', node: 'n9', at: at(3000) });
  return ndjson(lines);
}

describe.each(backends)('reports on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_ADMIN_TOKEN: TOKEN }, { webRoot });
  const newRun = async (mesh: string) => {
    const { status, body } = await server.json(
      '/runs',
      jsonBody(
        {
          benchmark: 'report-test',
          scenario: `s-${Date.now()}`,
          mesh: { name: mesh, version: '1.0' },
        },
        auth,
      ),
      run,
    );
    expect(status).toBe(201);
    expect((await postEvents(server, body.id, batch(), auth)).status).toBe(200);
    return body;
  };

  it('freezes a comparison, readable by slug without a token, with Open Graph tags', async () => {
    const a = await newRun('consul');
    const b = await newRun('istio');
    const created = await server.json(
      '/reports',
      jsonBody({ runs: [a.id, b.slug] }, auth),
      createdReport,
    );
    expect(created.status).toBe(201);
    expect(created.body.slug).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(created.body.url).toBe(`/r/${created.body.slug}`);
    expect(created.body.title).toMatch(/^consul 1\.0 vs istio 1\.0 · s-/);

    // Later events do not change what the report shows: it is a snapshot.
    await postEvents(
      server,
      a.id,
      ndjson([{ type: 'observation', change: 'c1', proxy: 'late', at: at(60_000) }]),
      auth,
    );

    const report = await server.anonJson(`/reports/${created.body.slug}`, {}, reportAnswer);
    expect(report.status).toBe(200);
    expect(report.body.runs).toHaveLength(2);
    const first = report.body.runs[0]!;
    expect(first.run.id).toBe(a.id);
    expect('slug' in first.run).toBe(false); // a report never hands out a run's share id
    // 10 expected, 10 applied: nearest-rank P50 is rank 5 = 500 ms; P99 is rank 10 = 3,000 ms.
    expect(first.changes[0]!.linear).toMatchObject({ count: 10, missing: 0, withinFraction: 0.9 });
    expect(first.changes[0]!.linear.percentiles.find((p) => p.p === 50)?.ms).toBe(500);
    expect(first.changes[0]!.linear.histogram.at(-1)?.toMs).toBe(3000); // linear bins up to P99
    expect(first.changes[0]!.log.scale).toBe('log');
    // Tail over 1 s: p10 at 3 s, explained by the reconnect on its node.
    expect(first.changes[0]!.tail).toMatchObject({
      tailCount: 1,
      causes: [{ cause: 'reconnect', count: 1 }],
    });
    expect(report.body.description).toContain('consul 1.0: P99 3.0 s, 90.0 % within 1 s');

    const page = await fetch(`${server.url}/r/${created.body.slug}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`<meta property="og:title" content="${created.body.title}`);
    expect(html).toContain('og:description" content="consul 1.0: P99 3.0 s, 90.0 % within 1 s');
  });

  it('freezes the scale-up timeline of a run that has one, and null for one that has not', async () => {
    const scaled = await newRun('nomad');
    const lifecycle = [
      { phase: 'joined', entity: 'n1', at: at(1_000) },
      { phase: 'joined', entity: 'n2', at: at(2_000) },
      { phase: 'joined', entity: 'n3', at: at(4_000) },
      { phase: 'joined', entity: 'n1', at: at(5_000) }, // again: counted once
    ].map((e) => ({ type: 'lifecycle', ...e }));
    expect((await postEvents(server, scaled.id, ndjson(lifecycle), auth)).status).toBe(200);
    const plain = await newRun('linkerd');
    const created = await server.json(
      '/reports',
      jsonBody({ runs: [scaled.id, plain.id] }, auth),
      createdReport,
    );
    expect(created.status).toBe(201);
    // Later lifecycle events do not move the frozen timeline.
    await postEvents(
      server,
      scaled.id,
      ndjson([{ type: 'lifecycle', phase: 'joined', entity: 'n4', at: at(6_000) }]),
      auth,
    );
    const report = await server.anonJson(`/reports/${created.body.slug}`, {}, reportAnswer);
    const frozen = report.body.runs[0]!.timeline;
    const joined = frozen?.phases.find((p) => p.phase === 'joined');
    expect(joined).toMatchObject({ count: 3, total: 3 });
    expect(joined?.points.at(-1)?.count).toBe(3);
    expect(report.body.runs[1]!.timeline).toBeNull();
    const live = await server.json(`/runs/${scaled.id}/timeline`, {}, timeline);
    expect(live.body.phases.find((p) => p.phase === 'joined')?.count).toBe(4);
  });

  it('needs a token to create or delete, and deletes', async () => {
    const a = await newRun('linkerd');
    expect((await server.anonJson('/reports', jsonBody({ runs: [a.id] }))).status).toBe(401);
    const created = await server.json('/reports', jsonBody({ runs: [a.id] }, auth), createdReport);
    expect(
      (await server.anonJson(`/reports/${created.body.slug}`, { method: 'DELETE' })).status,
    ).toBe(401);
    expect(
      (await server.api(`/reports/${created.body.slug}`, { method: 'DELETE', headers: auth }))
        .status,
    ).toBe(204);
    expect((await server.json(`/reports/${created.body.slug}`)).status).toBe(404);
    expect((await fetch(`${server.url}/r/${created.body.slug}`)).status).toBe(404);
  });

  it('refuses a run twice, more than four, an unknown run', async () => {
    const a = await newRun('consul');
    expect((await server.json('/reports', jsonBody({ runs: [a.id, a.slug] }, auth))).status).toBe(
      400,
    );
    expect(
      (await server.json('/reports', jsonBody({ runs: [a.id, 'b', 'c', 'd', 'e'] }, auth))).status,
    ).toBe(400);
    expect(
      (
        await server.json(
          '/reports',
          jsonBody({ runs: ['00000000-0000-0000-0000-000000000000'] }, auth),
        )
      ).status,
    ).toBe(404);
  });
});

describe.each(backends)('browsing and export on $name', (backend) => {
  const server = useServer(backend);

  it('filters by version, platform and dates, searches, sorts and pages', async () => {
    // Letters only: the search below looks for digits (a label value) in any field.
    const tag = `browse-${randomUUID().replace(/[^a-f]/g, '')}`;
    const made = [];
    for (const [i, mesh, version, platform] of [
      [0, 'consul', '1.9.5', 'nomad'],
      [1, 'istio', '1.8.2', 'kubernetes'],
      [2, 'linkerd', '2.9.2', 'kubernetes'],
    ] as const) {
      made.push(
        await createRun(server, {
          benchmark: tag,
          // The harness's default scenario holds a pid and a clock reading, digits the
          // search below could find.
          scenario: `browse-${'abc'[i]}`,
          mesh: { name: mesh, version },
          platform,
          startedAt: `2026-03-0${i + 1}T10:00:00Z`,
          labels: { pr: `${100 + i}` },
        }),
      );
    }
    const ids = async (query: string) =>
      (await server.json(`/runs?benchmark=${tag}&${query}`, {}, runList)).body;
    expect((await ids('platform=kubernetes')).runs.map((r) => r.id)).toEqual([
      made[2]!.id,
      made[1]!.id,
    ]);
    expect((await ids('version=1.9.5')).runs.map((r) => r.id)).toEqual([made[0]!.id]);
    expect(
      (await ids('from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z')).runs.map((r) => r.id),
    ).toEqual([made[1]!.id]);
    expect((await ids('q=LINK')).runs.map((r) => r.id)).toEqual([made[2]!.id]);
    expect((await ids('q=101')).runs.map((r) => r.id)).toEqual([made[1]!.id]); // a label value
    expect((await ids('sort=mesh')).runs.map((r) => r.id)).toEqual(made.map((r) => r.id));
    expect((await ids('sort=startedAt')).runs.map((r) => r.id)).toEqual(made.map((r) => r.id));
    const page2 = await ids('sort=startedAt&limit=2&offset=2');
    expect(page2).toMatchObject({ total: 3, runs: [{ id: made[2]!.id }] });
    expect((await server.json(`/runs?sort=sideways`)).status).toBe(400);
    const facets = await server.json('/runs/facets', {}, runFacets);
    expect(facets.body.meshes).toEqual(expect.arrayContaining(['consul', 'istio', 'linkerd']));
    expect(facets.body.labelKeys).toContain('pr');
  });

  it('exports the raw events as NDJSON that posts back to the same summary', async () => {
    const a = await createRun(server);
    await postEvents(server, a.id, batch());
    const response = await server.api(`/runs/${a.id}/events`);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const text = await response.text();
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(12);
    expect(lines[0]).toEqual({
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: '2026-02-01T10:00:00.000000Z',
      expected: 10,
    });
    expect(lines.filter((l) => l.type === 'observation')).toHaveLength(10);
    const b = await createRun(server);
    expect((await postEvents(server, b.id, text)).body).toEqual({ accepted: 12, duplicate: false });
    const summary = async (id: string) =>
      (await server.json(`/runs/${id}/changes/c1/propagation`, {}, propagation)).body;
    const [sa, sb] = [await summary(a.id), await summary(b.id)];
    expect(sb.percentiles).toEqual(sa.percentiles);
    expect(sb.histogram).toEqual(sa.histogram);
    expect((await server.api('/runs/00000000-0000-0000-0000-000000000000/events')).status).toBe(
      404,
    );
  });
});
