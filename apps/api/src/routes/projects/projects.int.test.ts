import {
  createdReport,
  createdToken,
  project as projectAnswer,
  run as runAnswer,
  runList,
  tokenInfo,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, jsonBody, ndjson, useServer } from '../../test/harness.ts';

const T0 = Date.parse('2026-02-01T10:00:00Z');
/** A change and one observation per latency (whole ms). */
const events = (latencies: number[]) =>
  ndjson([
    {
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: new Date(T0).toISOString(),
    },
    ...latencies.map((ms, i) => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      at: new Date(T0 + ms).toISOString(),
    })),
  ]);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe.each(backends)('projects, tokens and access on $name', (backend) => {
  const server = useServer(backend);
  let n = 0;
  const project = async (visibility: 'public' | 'private') => {
    const r = await server.json(
      '/projects',
      jsonBody({ name: `p-${Date.now()}-${n++}`, visibility }),
      projectAnswer,
    );
    expect(r.status).toBe(201);
    const t = await server.json(
      `/projects/${r.body.id}/tokens`,
      jsonBody({ name: 'ci' }),
      createdToken,
    );
    expect(t.status).toBe(201);
    return { ...r.body, token: t.body.token, tokenId: t.body.id, prefix: t.body.prefix };
  };
  const run = async (token: string, extra: Record<string, unknown> = {}) =>
    server.anonJson(
      '/runs',
      jsonBody(
        { benchmark: 'access', scenario: `s-${Date.now()}`, mesh: { name: 'consul' }, ...extra },
        bearer(token),
      ),
      runAnswer,
    );

  it('issues a token once, keeps only its hash, records its use, and revokes it', async () => {
    const p = await project('public');
    expect(p.token).toMatch(/^mb_[A-Za-z0-9_-]{43}$/);
    expect(p.prefix).toBe(p.token.slice(0, 10));
    const created = await run(p.token);
    expect(created.status).toBe(201);
    expect(created.body.projectId).toBe(p.id); // a token's runs go to its project
    const list = await server.json(`/projects/${p.id}/tokens`, {}, z.array(tokenInfo));
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ id: p.tokenId, name: 'ci' });
    expect((list.body[0] as Record<string, unknown>).token).toBeUndefined();
    expect(list.body[0]!.lastUsedAt).not.toBeNull();
    expect((await server.api(`/tokens/${p.tokenId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await run(p.token)).status).toBe(401);
    // A token that is not valid is refused even for a read.
    expect((await server.anonJson('/runs', { headers: bearer(p.token) })).status).toBe(401);
  });

  it("answers 401 without a token and 403 with another project's", async () => {
    const a = await project('public');
    const b = await project('public');
    expect(
      (
        await server.anonJson(
          '/runs',
          jsonBody({ benchmark: 'x', scenario: 'y', mesh: { name: 'z' } }),
        )
      ).status,
    ).toBe(401);
    const inB = await run(b.token);
    const post = (token: string) =>
      server.anonJson(`/runs/${inB.body.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', ...bearer(token) },
        body: events([1]),
      });
    expect((await post(a.token)).status).toBe(403);
    expect((await post(b.token)).status).toBe(200);
    expect((await run(a.token, { project: b.name })).status).toBe(403);
    expect(
      (
        await server.anonJson(`/runs/${inB.body.id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', ...bearer(a.token) },
          body: '{}',
        })
      ).status,
    ).toBe(403);
    // Only the admin makes projects.
    expect(
      (await server.anonJson('/projects', jsonBody({ name: 'nope' }, bearer(a.token)))).status,
    ).toBe(403);
  });

  it('keeps private runs to their project, the admin and share links', async () => {
    const priv = await project('private');
    const other = await project('public');
    const r = await run(priv.token);
    const get = (headers: Record<string, string> = {}) =>
      server.anonJson(`/runs/${r.body.id}`, { headers });
    expect((await get()).status).toBe(401);
    expect((await get(bearer(other.token))).status).toBe(403);
    expect((await get(bearer(priv.token))).status).toBe(200);
    expect((await server.json(`/runs/${r.body.id}`)).status).toBe(200); // the admin
    expect((await server.anonJson(`/runs/${r.body.id}/changes`)).status).toBe(401);

    const listed = async (headers: Record<string, string> = {}) =>
      (
        await server.anonJson(
          `/runs?benchmark=access&limit=500`,
          {
            headers,
          },
          runList,
        )
      ).body.runs.map((x) => x.id);
    expect(await listed()).not.toContain(r.body.id);
    expect(await listed(bearer(priv.token))).toContain(r.body.id);
    expect(await listed(bearer(other.token))).not.toContain(r.body.id);

    const shared = await server.anonJson(
      '/reports',
      jsonBody({ runs: [r.body.id] }, bearer(priv.token)),
      createdReport,
    );
    expect(shared.status).toBe(201);
    expect((await server.anonJson(`/reports/${shared.body.slug}`)).status).toBe(200);
    // A reader cannot publish a run it may not write.
    expect(
      (await server.anonJson('/reports', jsonBody({ runs: [r.body.id] }, bearer(other.token))))
        .status,
    ).toBe(403);
  });
});
