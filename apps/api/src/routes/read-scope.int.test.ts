// What a caller may learn without being allowed to read: the runs list's filter values and
// the ingest counters' last messages come only from what the caller may read.
import {
  createdToken,
  ingestStats,
  project as projectAnswer,
  type RunFacets,
  run as runAnswer,
  runFacets,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, jsonBody, TEST_ADMIN_TOKEN, useServer } from '../test/harness.ts';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe.each(backends)('read scoping on $name', (backend) => {
  const server = useServer(backend);
  let n = 0;
  const project = async (visibility: 'public' | 'private') => {
    const name = `scope-${Date.now()}-${n++}`;
    const p = await server.json('/projects', jsonBody({ name, visibility }), projectAnswer);
    const t = await server.json(
      `/projects/${p.body.id}/tokens`,
      jsonBody({ name: 'ci' }),
      createdToken,
    );
    return { id: p.body.id, token: t.body.token };
  };
  const tag = () => `${Date.now()}${Math.random().toString(36).slice(2)}`;

  it("lists facets of public runs and of the token's private project only", async () => {
    const secret = await project('private');
    const open = await project('public');
    const hidden = `hidden-${tag()}`;
    const shown = `shown-${tag()}`;
    for (const [p, word] of [
      [secret, hidden],
      [open, shown],
    ] as const) {
      const r = await server.json('/runs', {
        ...jsonBody({
          benchmark: word,
          scenario: word,
          mesh: { name: word, version: word },
          platform: word,
          labels: { [word]: '1' },
        }),
        headers: { 'content-type': 'application/json', ...bearer(p.token) },
      });
      expect(r.status).toBe(201);
    }
    const facets = async (headers: Record<string, string> = {}) =>
      (await server.anonJson('/runs/facets', { headers }, runFacets)).body;
    const values = (f: RunFacets) => Object.values(f).flat();

    const anonymous = values(await facets());
    expect(anonymous).toContain(shown);
    expect(anonymous).not.toContain(hidden);
    for (const key of [
      'meshes',
      'versions',
      'benchmarks',
      'scenarios',
      'platforms',
      'labelKeys',
    ] as const)
      expect((await facets())[key]).toContain(shown);

    expect(values(await facets(bearer(open.token)))).not.toContain(hidden);
    expect(values(await facets(bearer(secret.token)))).toContain(hidden);
    expect(values(await facets(bearer(TEST_ADMIN_TOKEN)))).toContain(hidden);
  });

  it("shows a rejection's message only to its project's token and the admin", async () => {
    const a = await project('private');
    const b = await project('private');
    const run = await server.json(
      '/runs',
      {
        ...jsonBody({ benchmark: 'scope', scenario: 's', mesh: { name: 'consul' } }),
        headers: { 'content-type': 'application/json', ...bearer(a.token) },
      },
      runAnswer,
    );
    const secret = `secret-target-${tag()}`;
    const rejected = await server.anonJson(`/runs/${run.body.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', ...bearer(a.token) },
      // An observation of a change that is not stored: the message names the change.
      body: JSON.stringify({
        type: 'observation',
        change: secret,
        proxy: 'p1',
        at: '2026-02-01T10:00:00Z',
      }),
    });
    expect(rejected.status).toBe(422);

    const stats = async (headers: Record<string, string> = {}) =>
      (await server.anonJson('/ingest/stats', { headers }, ingestStats)).body;

    const own = await stats(bearer(a.token));
    expect(own.messagesShown).toBe('project');
    expect(own.events.lastRejection?.message).toContain(secret);
    const admin = await stats(bearer(TEST_ADMIN_TOKEN));
    expect(admin.messagesShown).toBe('all');
    expect(admin.events.lastRejection?.message).toContain(secret);

    const other = await stats(bearer(b.token));
    expect(other.events.rejected).toBeGreaterThan(0); // counts are everyone's
    expect(JSON.stringify(other)).not.toContain(secret);
    const anonymous = await stats();
    expect(anonymous.messagesShown).toBe('none');
    expect(anonymous.events.lastRejection).toBeNull();
    expect(JSON.stringify(anonymous)).not.toContain(secret);
  });
});
