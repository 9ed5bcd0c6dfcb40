import { apiError, health, liveness, run, runList } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, jsonBody, useServer } from '../../test/harness.ts';

describe.each(backends)('runs on $name', (backend) => {
  const server = useServer(backend);

  it('is live and ready while it serves and its database answers', async () => {
    const live = await server.anonJson('/health/live', undefined, liveness);
    const ready = await server.anonJson('/health/ready', undefined, health);
    expect([live.status, live.body]).toEqual([200, { status: 'ok' }]);
    expect([ready.status, ready.body.status]).toEqual([200, 'ok']);
  });

  it('reports health with the database kind', async () => {
    const { status, body } = await server.json('/health');
    expect(status).toBe(200);
    // pgbouncer is a Postgres as far as the API can tell.
    expect(body).toEqual({
      status: 'ok',
      database: backend.name === 'embedded' ? 'embedded' : 'postgres',
    });
  });

  it('creates a run with an unguessable slug, readable by id and by slug', async () => {
    const created = await createRun(server, {
      platform: 'nomad',
      topology: { nodes: 10, instances: 200 },
      labels: { branch: 'main', sha: 'abc123' },
      startedAt: '2026-02-01T10:00:00Z',
    });
    // 22 base64url characters = 128 random bits.
    expect(created.slug).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const byId = await server.json(`/runs/${created.id}`, {}, run);
    const bySlug = await server.json(`/runs/${created.slug}`, {}, run);
    expect(byId.status).toBe(200);
    expect(bySlug.body).toEqual(byId.body);
    expect(byId.body).toMatchObject({
      platform: 'nomad',
      topology: { nodes: 10, instances: 200 },
      labels: { branch: 'main', sha: 'abc123' },
      status: 'running',
      startedAt: '2026-02-01T10:00:00.000Z',
      finishedAt: null,
    });
  });

  it('lists runs with filters, labels included', async () => {
    const mesh = `mesh-${Date.now()}`;
    const a = await createRun(server, { mesh: { name: mesh }, labels: { branch: 'main' } });
    const b = await createRun(server, { mesh: { name: mesh }, labels: { branch: 'feature' } });
    const all = await server.json(`/runs?mesh=${mesh}`, {}, runList);
    expect(all.body.total).toBe(2);
    expect(all.body.runs.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    const main = await server.json(`/runs?mesh=${mesh}&label=branch:main`, {}, runList);
    expect(main.body.runs.map((r) => r.id)).toEqual([a.id]);
    const bad = await server.json(`/runs?label=nocolon`, {}, apiError);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('label');
  });

  it('finishes a run', async () => {
    const run = await createRun(server, { startedAt: '2026-02-01T10:00:00Z' });
    const { status, body } = await server.json(`/runs/${run.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ finishedAt: '2026-02-01T10:05:00Z' }),
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'finished', finishedAt: '2026-02-01T10:05:00.000Z' });
    const early = await server.json(`/runs/${run.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ finishedAt: '2026-02-01T09:00:00Z' }),
    });
    expect(early.status).toBe(400);
  });

  it('rejects a bad run with the field named', async () => {
    const { status, body } = await server.json(
      '/runs',
      jsonBody({ benchmark: 'b', scenario: 's', mesh: { name: 'consul' }, startedAt: 'yesterday' }),
      apiError,
    );
    expect(status).toBe(400);
    expect(body.field).toBe('startedAt');
    const missing = await server.json(
      '/runs',
      jsonBody({ benchmark: 'b', scenario: 's' }),
      apiError,
    );
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('mesh');
  });

  it('answers 404 for an unknown run', async () => {
    const { status, body } = await server.json(
      '/runs/00000000-0000-0000-0000-000000000000',
      {},
      apiError,
    );
    expect(status).toBe(404);
    expect(body.code).toBe('not_found');
  });
});

describe.each(backends)('write access on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_ADMIN_TOKEN: 'a-long-enough-admin-token' });

  it('needs the admin token for writes when one is configured, not for reads', async () => {
    const body = { benchmark: 'b', scenario: 's', mesh: { name: 'consul' } };
    expect((await server.anonJson('/runs', jsonBody(body))).status).toBe(401);
    expect(
      (
        await server.json(
          '/runs',
          jsonBody(body, { authorization: 'Bearer wrong-token-of-some-length' }),
        )
      ).status,
    ).toBe(401);
    const ok = await server.json(
      '/runs',
      jsonBody(body, { authorization: 'Bearer a-long-enough-admin-token' }),
      run,
    );
    expect(ok.status).toBe(201);
    expect((await server.anonJson(`/runs/${ok.body.id}`)).status).toBe(200);
  });
});
