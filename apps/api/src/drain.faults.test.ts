// Graceful drain on SIGTERM, as a balancer sees it: readiness fails first while the replica
// still serves, reads and uploads in flight finish, and the pool closes last. The built
// server as a process of its own, on both databases.
import { connect } from 'node:net';
import { ingestResult, run as runAnswer, seriesList, statsdStats } from '@meshbench/schema';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ApiProcess,
  freePort,
  PROCESS_ADMIN_TOKEN,
  processBackends,
  startApiProcess,
  stopApiProcesses,
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
  // A test that fails or times out before it stops its processes leaves none running.
  afterEach(stopApiProcesses);

  it('answers every read and upload in flight, fails readiness first, flushes StatsD, and exits 0', async () => {
    const statsdPort = await freePort();
    const env = {
      ...backend.env(),
      STATSD_PORT: String(statsdPort),
      STATSD_HOST: '127.0.0.1',
      // No flush of its own before the shutdown's: what StatsD holds is stored by the drain.
      MESHBENCH_STATSD_FLUSH_MS: '3600000',
      // No answer served from memory: each read goes to the database.
      MESHBENCH_READ_CACHE_MS: '0',
      MESHBENCH_SHUTDOWN_TIMEOUT_MS: '30000',
      MESHBENCH_DRAIN_MS: '3000',
    };
    const api: ApiProcess = await startApiProcess(env);
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

    // StatsD samples for the run, held by the listener until a flush.
    const samples = 200;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(statsdPort, '127.0.0.1', () => {
        const lines = Array.from({ length: samples }, () => `drain.count:1|c|#run:${run.id}`);
        socket.end(`${lines.join('\n')}\n`, () => resolve());
      });
      socket.once('error', reject);
    });
    for (let i = 0; i < 200; i++) {
      const stats = await api.json('/statsd/stats', {}, statsdStats);
      if (stats.samples >= samples) break;
      await new Promise((r) => setTimeout(r, 50));
    }

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

    // Started again on the same database: the StatsD samples were stored at the shutdown.
    const again = await startApiProcess(env);
    try {
      const series = await again.json(`/runs/${run.id}/series`, {}, seriesList);
      expect(series.find((s) => s.name === 'drain.count')?.stats).toMatchObject({
        count: samples,
        sum: samples,
      });
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 120_000);
});
