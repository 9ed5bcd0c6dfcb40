// StatsD across a database outage: a Postgres cluster of the test's own is stopped while
// samples arrive over UDP and started again. What was aggregated meanwhile is kept and
// written once the database is back, in order and once; with a tiny backlog bound, what is
// dropped is counted per sample, so that received = stored + dropped exactly.

import { createSocket } from 'node:dgram';
import { openDatabase } from '@meshbench/db';
import { seriesList, seriesPoints, statsdStats } from '@meshbench/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { type Backend, createRun } from '../../test/harness.ts';
import { until, useMetricsServer } from '../../test/metrics-harness.ts';
import { canMakeClusters, makeCluster, type PgCluster } from '../../test/pg-cluster.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends datagrams one after another (each acknowledged by the kernel before the next). */
async function send(port: number, datagrams: string[]): Promise<void> {
  const socket = createSocket('udp4');
  for (const d of datagrams) {
    await new Promise<void>((resolve, reject) =>
      socket.send(d, port, '127.0.0.1', (error) => (error ? reject(error) : resolve())),
    );
  }
  await new Promise<void>((resolve) => socket.close(() => resolve()));
}

/** A backend on a cluster of the suite's own, which the test may stop and start. */
function clusterBackend(): { backend: Backend; cluster: () => PgCluster } {
  let cluster: PgCluster | undefined;
  afterAll(() => cluster?.remove());
  return {
    backend: {
      name: 'postgres',
      open: async () => {
        cluster = await makeCluster();
        return openDatabase({ url: cluster.url, poolSize: 4 });
      },
    },
    cluster: () => cluster as PgCluster,
  };
}

describe.skipIf(!canMakeClusters)('StatsD during a database outage', () => {
  const { backend, cluster } = clusterBackend();
  const server = useMetricsServer(backend, { MESHBENCH_STATSD_FLUSH_MS: '200' });
  const stats = async () => (await server.json('/statsd/stats', {}, statsdStats)).body;

  it('keeps what arrives while the database is down and writes it, in order, once', async () => {
    const run = await createRun(server);
    const tag = `|#run:${run.id}`;
    let next = 1;
    /** Ten samples per datagram: a counter increment and a gauge that only grows. */
    const batch = (datagrams: number) =>
      Array.from({ length: datagrams }, () => {
        const lines: string[] = [];
        for (let i = 0; i < 5; i++) {
          lines.push(`outage.count:1|c${tag}`, `outage.seq:${next++}|g${tag}`);
        }
        return lines.join('\n');
      });
    const before = await stats();

    await send(server.udpPort, batch(40));
    await until(async () => (await stats()).samples - before.samples >= 400);
    await server.app.statsd.flush();

    cluster().stop();
    // Sent over ~3 s of outage: about 15 intervals fail to be written.
    for (let i = 0; i < 10; i++) {
      await send(server.udpPort, batch(10));
      await sleep(300);
    }
    const during = await stats();
    expect(during.flushErrors).toBeGreaterThan(before.flushErrors);
    expect(during.backlogPoints).toBeGreaterThan(0);
    cluster().start();

    await send(server.udpPort, batch(40));
    const sent = next - 1;
    const total = 2 * sent; // a counter and a gauge sample per value
    await until(async () => {
      const s = await stats();
      return s.samples - before.samples >= total && s.backlogPoints === 0;
    }, 60_000);
    await server.app.statsd.flush();

    const after = await stats();
    expect(after.droppedSamples).toBe(before.droppedSamples);
    expect(after.malformed).toBe(before.malformed);
    const { body } = await server.json(`/runs/${run.id}/series`, {}, seriesList);
    const count = body.find((s) => s.name === 'outage.count');
    const seq = body.find((s) => s.name === 'outage.seq');
    // Every sample arrived, and none twice.
    expect(count?.stats).toMatchObject({ count: sent, sum: sent });
    expect(seq?.stats).toMatchObject({ count: sent, last: sent });
    // In order: the gauge's points, in time, only grow, and end at the last value sent.
    const points = await server.json(
      `/runs/${run.id}/series/${seq?.id}/points?points=1000`,
      {},
      seriesPoints,
    );
    const values = points.body.points.map((p) => p.value as number);
    expect(values.length).toBeGreaterThan(3);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(values.at(-1)).toBe(sent);
  });
});

describe.skipIf(!canMakeClusters)('StatsD outage past a tiny backlog bound', () => {
  const { backend, cluster } = clusterBackend();
  const server = useMetricsServer(backend, {
    MESHBENCH_STATSD_FLUSH_MS: '200',
    MESHBENCH_STATSD_BACKLOG_MAX_POINTS: '4',
  });
  const stats = async () => (await server.json('/statsd/stats', {}, statsdStats)).body;

  it('counts exactly what it drops: received = stored + dropped', async () => {
    const run = await createRun(server);
    const before = await stats();
    // Two series: an interval fits under the bound, a few kept during the outage do not.
    const datagram = (k: number) =>
      Array.from({ length: 2 }, (_, s) => `tiny.s${s}:${k}|ms|#run:${run.id}`).join('\n');
    let sent = 0;
    const sendSome = async (n: number) => {
      const ds: string[] = [];
      for (let i = 0; i < n; i++) ds.push(datagram(++sent));
      await send(server.udpPort, ds);
    };

    await sendSome(5);
    await until(async () => (await stats()).samples - before.samples >= 5 * 2);
    await server.app.statsd.flush();
    cluster().stop();
    for (let i = 0; i < 8; i++) {
      await sendSome(3);
      await sleep(250);
    }
    cluster().start();
    await sendSome(5);
    const received = sent * 2;
    await until(async () => {
      const s = await stats();
      return s.samples - before.samples >= received && s.backlogPoints === 0;
    }, 60_000);
    await server.app.statsd.flush();

    const after = await stats();
    const dropped = after.droppedSamples - before.droppedSamples;
    expect(dropped).toBeGreaterThan(0);
    const { body } = await server.json(`/runs/${run.id}/series`, {}, seriesList);
    const stored = body.reduce((n, s) => n + s.stats.count, 0);
    expect(stored + dropped).toBe(received);
    expect(stored).toBeGreaterThan(0);
    // The same figure for a Prometheus scraper.
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(metric('meshbench_statsd_dropped_samples_total')).toBe(after.droppedSamples);
    expect(metric('meshbench_statsd_backlog_points')).toBe(0);
  });
});
