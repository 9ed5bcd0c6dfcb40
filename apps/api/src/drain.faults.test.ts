// Graceful drain on SIGTERM, as a balancer sees it: readiness fails first while the replica
// still serves, reads and uploads in flight finish, and the pool closes last. The built
// server as a process of its own, on both databases.
import { ingestResult, run as runAnswer } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  type ApiProcess,
  PROCESS_ADMIN_TOKEN,
  processBackends,
  startApiProcess,
} from './test/api-process.ts';

const T0 = Date.parse('2026-02-01T10:00:00Z');
const batch = (from: number, to: number) => {
  const lines = [
    JSON.stringify({
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: new Date(T0).toISOString(),
    }),
  ];
  for (let i = from; i < to; i++)
    lines.push(
      JSON.stringify({
        type: 'observation',
        change: 'c1',
        proxy: `proxy-${i}-sidecar`,
        node: `node-${i % 100}`,
        at: new Date(T0 + (i % 5000)).toISOString(),
      }),
    );
  return `${lines.join('\n')}\n`;
};

const auth = { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}` };

/** A status, or the name of the failure when no answer came (a reset connection). */
const statusOrError = (p: Promise<Response>) =>
  p.then(
    async (r) => {
      await r.arrayBuffer();
      return r.status === 200 ? 200 : `${r.status} ${r.statusText}`;
    },
    (error: Error) =>
      `${error.name}: ${(error.cause as Error | undefined)?.message ?? error.message}`,
  );

describe.each(processBackends)('drain on SIGTERM on $name', (backend) => {
  it('answers every read and upload in flight, fails readiness first, and exits 0', async () => {
    const api: ApiProcess = await startApiProcess({
      ...backend.env(),
      // No answer served from memory: each read goes to the database.
      MESHBENCH_READ_CACHE_MS: '0',
      MESHBENCH_SHUTDOWN_TIMEOUT_MS: '30000',
      MESHBENCH_DRAIN_MS: '3000',
    });
    const run = await api.json(
      '/runs',
      {
        method: 'POST',
        body: JSON.stringify({ benchmark: 'faults', scenario: 'drain', mesh: { name: 'consul' } }),
      },
      runAnswer,
    );
    await api.json(
      `/runs/${run.id}/events`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: batch(0, 20_000),
      },
      ingestResult,
    );
    expect((await fetch(`${api.url}/api/v1/health/ready`)).status, 'ready before the signal').toBe(
      200,
    );

    // 50 reads of the change's summary and one upload, each on a connection of its own.
    const reads = Array.from({ length: 50 }, () =>
      statusOrError(
        fetch(`${api.url}/api/v1/runs/${run.id}/changes/c1/propagation`, {
          headers: { ...auth, connection: 'close' },
        }),
      ),
    );
    const upload = statusOrError(
      fetch(`${api.url}/api/v1/runs/${run.id}/events`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/x-ndjson', connection: 'close' },
        body: batch(20_000, 40_000),
      }),
    );
    await new Promise((r) => setTimeout(r, 20));
    api.child.kill('SIGTERM');
    // While it drains, it still answers: not ready, but alive. (The signal is handled on the
    // process's next turn: a check answered before it still says ready.)
    let ready = { status: 0, body: { status: '' } };
    for (let i = 0; i < 100 && ready.status !== 503; i++) {
      const r = await fetch(`${api.url}/api/v1/health/ready`, { headers: { connection: 'close' } });
      ready = { status: r.status, body: (await r.json()) as { status: string } };
      if (ready.status !== 503) await new Promise((r) => setTimeout(r, 20));
    }
    const live = await fetch(`${api.url}/api/v1/health/live`, { headers: { connection: 'close' } });
    await live.arrayBuffer();

    expect(await Promise.all(reads)).toEqual(reads.map(() => 200));
    expect(await upload).toBe(200);
    expect([ready.status, ready.body.status]).toEqual([503, 'draining']);
    expect(live.status).toBe(200);
    expect(await api.exited).toBe(0);
  }, 120_000);
});
