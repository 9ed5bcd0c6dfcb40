// The read cache serves a page's answers again, never across readers, never past a write
// this replica answered, and never older than its time to live.
import { project as projectAnswer, propagation } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../test/answer.ts';
import { backends, createRun, jsonBody, ndjson, postEvents, useServer } from '../test/harness.ts';

const T0 = '2026-02-01T10:00:00.000Z';
const change = { type: 'change', id: 'c1', kind: 'endpoint', target: 't', action: 'add', at: T0 };
const observation = (proxy: string, ms: number) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  at: new Date(Date.parse(T0) + ms).toISOString(),
});

describe.each(backends)('the read cache on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_READ_CACHE_MS: '60000' });
  const summary = (runId: string) => `/runs/${runId}/changes/c1/propagation?percentiles=50`;

  it('serves the same answer again, and forgets it when this replica takes a write', async () => {
    const run = await createRun(server);
    expect((await postEvents(server, run.id, ndjson([change, observation('p1', 10)]))).status).toBe(
      200,
    );
    const first = await fetch(`${server.url}/api/v1${summary(run.id)}`);
    expect(first.headers.get('x-meshbench-cache')).toBeNull();
    expect(checkAnswer(summary(run.id), 200, await first.json(), propagation).count).toBe(1);
    const again = await fetch(`${server.url}/api/v1${summary(run.id)}`);
    expect(again.headers.get('x-meshbench-cache')).toBe('hit');
    expect(checkAnswer(summary(run.id), 200, await again.json(), propagation).count).toBe(1);

    expect((await postEvents(server, run.id, ndjson([observation('p2', 20)]))).status).toBe(200);
    const after = await fetch(`${server.url}/api/v1${summary(run.id)}`);
    expect(after.headers.get('x-meshbench-cache')).toBeNull();
    expect(checkAnswer(summary(run.id), 200, await after.json(), propagation).count).toBe(2);
  });

  it("keeps each reader's answers apart: a private run read by a writer stays private", async () => {
    const project = await server.json(
      '/projects',
      jsonBody({ name: `cache-${Date.now()}`, visibility: 'private' }),
      projectAnswer,
    );
    const run = await createRun(server, { project: project.body.id });
    expect((await server.json(`/runs/${run.id}`)).status).toBe(200);
    expect((await server.json(`/runs/${run.id}`)).status).toBe(200);
    expect((await server.anonJson(`/runs/${run.id}`)).status).toBe(401);
  });

  it('keeps no refusal, no stream and no live counter', async () => {
    expect((await server.anonJson('/runs/nope')).status).toBe(404);
    const missing = await fetch(`${server.url}/api/v1/runs/nope`);
    expect(missing.headers.get('x-meshbench-cache')).toBeNull();
    await fetch(`${server.url}/api/v1/ingest/stats`);
    const stats = await fetch(`${server.url}/api/v1/ingest/stats`);
    expect(stats.headers.get('x-meshbench-cache')).toBeNull();
  });
});

describe.each(backends)('the read cache, time to live, on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_READ_CACHE_MS: '300' });

  it('answers afresh once the time to live is over', async () => {
    const run = await createRun(server);
    await fetch(`${server.url}/api/v1/runs/${run.id}`);
    expect(
      (await fetch(`${server.url}/api/v1/runs/${run.id}`)).headers.get('x-meshbench-cache'),
    ).toBe('hit');
    await new Promise((r) => setTimeout(r, 400));
    expect(
      (await fetch(`${server.url}/api/v1/runs/${run.id}`)).headers.get('x-meshbench-cache'),
    ).toBeNull();
  });
});
