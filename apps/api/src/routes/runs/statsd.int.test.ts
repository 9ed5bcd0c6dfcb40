import { createSocket } from 'node:dgram';
import { project, seriesList, seriesPoints, statsdStats } from '@meshbench/schema';
import StatsD from 'hot-shots';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backends, createRun } from '../../test/harness.ts';
import { until, useMetricsServer } from '../../test/metrics-harness.ts';

function close(client: InstanceType<typeof StatsD>): Promise<void> {
  return new Promise((resolve) => client.close(() => resolve()));
}

function sendRaw(port: number, datagrams: (string | Buffer)[]): Promise<void> {
  const socket = createSocket('udp4');
  return new Promise((resolve, reject) => {
    let left = datagrams.length;
    for (const d of datagrams) {
      socket.send(d, port, '127.0.0.1', (error) => {
        if (error) reject(error);
        if (--left === 0) socket.close(() => resolve());
      });
    }
  });
}

// UDP is read by the udp-batch addon (its thread and recvmmsg) by default, and by
// node:dgram where the addon is not built or MESHBENCH_STATSD_UDP=dgram: both are tested.
const receivers = ['batch', 'dgram'] as const;
const cases = backends.flatMap((backend) => receivers.map((udp) => ({ backend, udp })));

describe.each(cases)('StatsD listener on $backend.name, UDP read by $udp', ({ backend, udp }) => {
  const server = useMetricsServer(backend, {
    MESHBENCH_STATSD_FLUSH_MS: '200',
    MESHBENCH_STATSD_UDP: udp,
  });
  const samples = () => server.app.statsd.stats().samples;
  const series = async (runId: string) => {
    await server.app.statsd.flush();
    const { status, body } = await server.json(`/runs/${runId}/series`, {}, seriesList);
    expect(status).toBe(200);
    return (name: string) => {
      const found = body.find((s) => s.name === name);
      if (!found) throw new Error(`no series ${name} in ${body.map((s) => s.name).join(', ')}`);
      return found;
    };
  };

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('aggregates every metric type from hot-shots over UDP', async () => {
    const run = await createRun(server);
    // hot-shots drops sampled metrics at random on the client: keep them all, so the
    // sample-rate correction on the server has a known answer.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const client = new StatsD({
      host: '127.0.0.1',
      port: server.udpPort,
      protocol: 'udp',
      globalTags: { run: run.id, mesh: 'consul' },
      maxBufferSize: 1400,
      bufferFlushInterval: 5,
    });
    const before = samples();
    for (let i = 0; i < 10; i++) client.increment('xds.pushes', 1);
    for (let i = 0; i < 4; i++) client.increment('xds.pushes', 2, 0.5);
    client.gauge('cpu.pct', 40);
    client.gaugeDelta('cpu.pct', 5);
    client.gaugeDelta('cpu.pct', -12);
    for (let v = 1; v <= 100; v++) client.timing('push.latency', v);
    for (let i = 0; i < 3; i++) client.histogram('batch.size', 5);
    client.distribution('apply.ms', 2.5, 0.25);
    client.set('nodes.seen', 'n1');
    client.set('nodes.seen', 'n2');
    client.set('nodes.seen', 'n1');
    client.event('leader elected', 'server-2 is the leader');
    client.check('consul.up', client.CHECKS.OK);
    await close(client);
    await until(() => samples() - before >= 10 + 4 + 3 + 100 + 3 + 1 + 3);

    const get = await series(run.id);
    expect(get('xds.pushes')).toMatchObject({
      kind: 'counter',
      source: 'statsd',
      tags: { mesh: 'consul' },
      stats: { count: 14, sum: 10 + 4 * (2 / 0.5) },
    });
    expect(get('cpu.pct')).toMatchObject({
      kind: 'gauge',
      stats: { count: 3, last: 33, min: 33, max: 45 },
    });
    const latency = get('push.latency');
    expect(latency).toMatchObject({
      kind: 'timer',
      stats: { count: 100, sum: 5050, min: 1, max: 100 },
    });
    const p99 = latency.stats.percentiles?.find((p) => p.p === 99)?.value as number;
    expect(Math.abs(p99 - 99) / 99).toBeLessThan(0.02);
    expect(get('batch.size')).toMatchObject({ kind: 'histogram', stats: { count: 3, sum: 15 } });
    expect(get('apply.ms')).toMatchObject({ kind: 'distribution', stats: { count: 4, sum: 10 } });
    expect(get('nodes.seen')).toMatchObject({ kind: 'set', stats: { count: 2 } });
    const stats = server.app.statsd.stats();
    expect(stats.udpReceiver).toBe(udp);
    expect(stats.events).toBeGreaterThanOrEqual(1);
    expect(stats.serviceChecks).toBeGreaterThanOrEqual(1);
  });

  it("reads back gauges beyond 2^53 (Envoy's uint64 version hashes) exactly", async () => {
    const run = await createRun(server);
    const client = new StatsD({
      host: '127.0.0.1',
      port: server.udpPort,
      protocol: 'udp',
      globalTags: { run: run.id },
    });
    const before = samples();
    // hot-shots writes `${value}`: a BigInt goes out as its exact digits, as Envoy's sink
    // writes a uint64 (statsd.cc: StrCat(name, ":", gauge.value(), "|g")).
    const gauge = client.gauge.bind(client) as (name: string, value: bigint | number) => void;
    const gaugeDelta = client.gaugeDelta.bind(client) as (name: string, v: bigint | number) => void;
    gauge('cds.version', 1_000n); // replaced by the next
    gauge('cds.version', 18_446_744_073_709_551_615n); // 2^64 - 1
    gauge('lds.version', 9_007_199_254_740_993n); // 2^53 + 1, the first a float64 cannot hold
    gauge('rds.version', 9_007_199_254_740_990n); // within 2^53 ...
    gaugeDelta('rds.version', 5); // ... and past it by a delta: 2^53 + 3
    gauge('eds.version', 12_345); // small: no exact text needed
    await close(client);
    await until(() => samples() - before >= 6);
    const get = await series(run.id);
    expect(get('cds.version').stats.lastExact).toBe('18446744073709551615');
    expect(get('lds.version').stats.lastExact).toBe('9007199254740993');
    expect(get('rds.version').stats.lastExact).toBe('9007199254740995');
    expect(get('eds.version').stats).toMatchObject({ last: 12_345 });
    expect(get('eds.version').stats.lastExact).toBeUndefined();
  });

  it('takes newline-delimited TCP from hot-shots', async () => {
    const run = await createRun(server);
    const client = new StatsD({
      host: '127.0.0.1',
      port: server.tcpPort,
      protocol: 'tcp',
      globalTags: { run: run.slug },
    });
    const before = samples();
    for (let i = 0; i < 50; i++) client.increment('raft.applies', 3);
    client.gauge('mem.bytes', 1_000_000);
    client.gaugeDelta('mem.bytes', 24);
    await close(client);
    await until(() => samples() - before >= 52);
    const get = await series(run.id);
    expect(get('raft.applies').stats).toMatchObject({ count: 50, sum: 150 });
    expect(get('mem.bytes').stats).toMatchObject({ last: 1_000_024 });
  });

  // hot-shots with `telegraf: true` puts the tags in the name (`name,k=v:1|c`): read as
  // the same tags as DogStatsD's `|#k:v`, so `run=` and `env=` find the run the same way.
  for (const protocol of ['udp', 'tcp'] as const) {
    it(`takes hot-shots in telegraf mode over ${protocol.toUpperCase()}`, async () => {
      const run = await createRun(server);
      const env = `tg-${protocol}-${process.pid}-${Date.now()}`;
      const byEnv = await createRun(server, { environment: env });
      vi.spyOn(Math, 'random').mockReturnValue(0);
      const client = new StatsD({
        host: '127.0.0.1',
        port: protocol === 'udp' ? server.udpPort : server.tcpPort,
        protocol,
        telegraf: true,
        globalTags: { mesh: 'istio' },
        ...(protocol === 'udp' ? { maxBufferSize: 1400, bufferFlushInterval: 5 } : {}),
      });
      const tagged = { run: run.id, node: 'n1' };
      const before = samples();
      for (let i = 0; i < 20; i++) client.increment('xds.pushes', 3, tagged);
      for (let i = 0; i < 8; i++) client.increment('xds.pushes', 1, 0.25, tagged);
      client.gauge('cpu.pct', 40, tagged);
      client.gaugeDelta('cpu.pct', -15, tagged);
      for (let v = 1; v <= 50; v++) client.timing('push.latency', v, tagged);
      client.histogram('batch.size', 7.5, tagged);
      client.histogram('batch.size', 2.5, tagged);
      client.distribution('apply.ms', 0.125, tagged);
      client.set('nodes.seen', 'a', tagged);
      client.set('nodes.seen', 'b', tagged);
      client.set('nodes.seen', 'a', tagged);
      // No run tag: the env tag and the time pick the run.
      for (let i = 0; i < 4; i++) client.increment('env.matched', 5, { env });
      await close(client);
      await until(() => samples() - before >= 20 + 8 + 2 + 50 + 2 + 1 + 3 + 4);

      const get = await series(run.id);
      expect(get('xds.pushes')).toMatchObject({
        kind: 'counter',
        tags: { mesh: 'istio', node: 'n1' },
        stats: { count: 28, sum: 20 * 3 + 8 * (1 / 0.25) },
      });
      expect(get('cpu.pct').stats).toMatchObject({ count: 2, last: 25, min: 25, max: 40 });
      expect(get('push.latency')).toMatchObject({
        kind: 'timer',
        stats: { count: 50, sum: (50 * 51) / 2, min: 1, max: 50 },
      });
      expect(get('batch.size').stats).toMatchObject({ count: 2, sum: 10, min: 2.5, max: 7.5 });
      expect(get('apply.ms').stats).toMatchObject({ count: 1, sum: 0.125 });
      expect(get('nodes.seen')).toMatchObject({ kind: 'set', stats: { count: 2 } });
      const { body } = await server.json(`/runs/${run.id}/series`, {}, seriesList);
      // Nothing kept its tags in its name.
      expect(body.filter((s) => s.name.includes(',') || s.name.includes('='))).toEqual([]);
      expect(body.map((s) => s.tags.run)).toEqual(body.map(() => undefined));
      const matched = (await series(byEnv.id))('env.matched');
      expect(matched).toMatchObject({ tags: { env, mesh: 'istio' }, stats: { count: 4, sum: 20 } });
    });
  }

  it('takes hot-shots in DogStatsD mode over TCP, tags and env matching included', async () => {
    const env = `dd-tcp-${process.pid}-${Date.now()}`;
    const run = await createRun(server, { environment: env });
    const client = new StatsD({
      host: '127.0.0.1',
      port: server.tcpPort,
      protocol: 'tcp',
      globalTags: { env, mesh: 'linkerd' },
    });
    const before = samples();
    for (let v = 1; v <= 30; v++) client.timing('proxy.latency', v * 0.5, { route: 'a' });
    client.increment('proxy.requests', 7, { route: 'a' });
    await close(client);
    await until(() => samples() - before >= 31);
    const get = await series(run.id);
    expect(get('proxy.latency')).toMatchObject({
      tags: { env, mesh: 'linkerd', route: 'a' },
      stats: { count: 30, sum: (0.5 * 30 * 31) / 2, min: 0.5, max: 15 },
    });
    expect(get('proxy.requests').stats).toMatchObject({ count: 1, sum: 7 });
  });

  it('ties untagged metrics to the run of their environment and time (|T)', async () => {
    const env = `int-${process.pid}-${Date.now()}`;
    const startedAt = Date.UTC(2026, 1, 1, 10, 0, 0);
    const run = await createRun(server, {
      environment: env,
      startedAt: new Date(startedAt).toISOString(),
      finishedAt: new Date(startedAt + 600_000).toISOString(),
    });
    const client = new StatsD({ host: '127.0.0.1', port: server.udpPort, protocol: 'udp' });
    const at = (s: number) => ({ timestamp: startedAt / 1000 + s, tags: { env } });
    const before = samples();
    client.gauge('cp.cpu', 20, at(10));
    client.gauge('cp.cpu', 43, at(70));
    client.gauge('cp.cpu', 7, at(500));
    // Before the run: no run matches, so it is held for a run created later to claim.
    client.increment('outside', 1, at(-3600));
    const held = server.app.statsd.stats().held;
    await close(client);
    await until(() => samples() - before >= 4);
    const get = await series(run.id);
    const cpu = get('cp.cpu');
    expect(cpu.stats).toMatchObject({ count: 3, last: 7, min: 7, max: 43 });
    expect(cpu.tags).toEqual({ env });
    const points = await server.json(
      `/runs/${run.id}/series/${cpu.id}/points?points=100`,
      {},
      seriesPoints,
    );
    expect(points.body.points.map((p) => [p.offsetMs, p.value])).toEqual([
      [10_000, 20],
      [70_000, 43],
      [500_000, 7],
    ]);
    expect(points.body.points[0]?.t).toBe('2026-02-01T10:00:10.000Z');
    expect(server.app.statsd.stats().held).toBe(held + 1);
  });

  it('counts garbage, oversized datagrams, non-numeric values and unknown types, and goes on', async () => {
    const run = await createRun(server);
    const before = server.app.statsd.stats();
    await sendRaw(server.udpPort, [
      Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x02]),
      `big:${'9'.repeat(65_000)}x|c`,
      'cpu:abc|g',
      'cpu:1|zz',
      `ok:1|c|#run:${run.id}\n`,
    ]);
    await until(() => server.app.statsd.stats().samples > before.samples);
    const after = server.app.statsd.stats();
    expect(after.malformed - before.malformed).toBe(4);
    expect(after.datagrams - before.datagrams).toBe(5);
    expect(after.lastMalformed).toBeTruthy();
    const exposed = await server.json('/statsd/stats', {}, statsdStats);
    expect(exposed.body.malformed).toBe(after.malformed);
    // And in the API's own metrics, for a Prometheus scraper.
    const scraped = await fetch(`${server.url}/metrics`);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await scraped.text();
    const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(metric('meshbench_statsd_malformed_lines_total')).toBe(after.malformed);
    expect(metric('meshbench_statsd_datagrams_total')).toBe(after.datagrams);
    expect(text).toContain(`meshbench_statsd_udp_receiver{receiver="${udp}"} 1`);
    expect(metric('process_resident_memory_bytes')).toBeGreaterThan(0);
    const get = await series(run.id);
    expect(get('ok').stats.sum).toBe(1);
  });
  // Postgres text cannot hold U+0000: before the parser refused it, one such line made the
  // interval's COPY fail, and every run lost that interval.
  it('counts a NUL byte and other bad lines as malformed, and stores everything else', async () => {
    const a = await createRun(server);
    const b = await createRun(server);
    const before = server.app.statsd.stats();
    const lines = [
      `a.ok:1|c|#run:${a.id}`,
      `a.bad\u0000:1|c|#run:${a.id}`,
      `a.ok:2|c|#run:${a.id}`,
      `nul.tag:1|c|#run:${b.id},k:\u0000`,
      `nul.member:x\u0000|s|#run:${b.id}`,
      `inf:Infinity|g|#run:${b.id}`,
      `nan:NaN|ms|#run:${b.id}`,
      `rate:1|c|@1e-300|#run:${b.id}`,
      `${'n'.repeat(2000)}:1|c|#run:${b.id}`,
    ];
    const bytes = [
      Buffer.from(lines.join('\n')),
      // Invalid UTF-8 and a lone surrogate (WTF-8 bytes), each beside a good line.
      Buffer.concat([
        Buffer.from('bad.'),
        Buffer.from([0xff]),
        Buffer.from(`:1|c|#run:${b.id}\nb.ok:5|c|#run:${b.id}`),
      ]),
      Buffer.concat([
        Buffer.from(`b.ok:6|c|#run:${b.id}\nsur:1|c|#run:${b.id},k:`),
        Buffer.from([0xed, 0xa0, 0x80]),
      ]),
    ];
    await sendRaw(server.udpPort, bytes);
    await until(() => server.app.statsd.stats().datagrams - before.datagrams >= 3);
    await server.app.statsd.flush();
    const after = server.app.statsd.stats();
    expect(after.flushErrors).toBe(before.flushErrors);
    expect((await series(a.id))('a.ok').stats).toMatchObject({ count: 2, sum: 3 });
    const bs = await server.json(`/runs/${b.id}/series`, {}, seriesList);
    expect(bs.body.map((s) => [s.name, s.stats.sum])).toEqual([['b.ok', 11]]);
    expect(after.malformed - before.malformed).toBe(9);
    expect(after.samples - before.samples).toBe(4);
  });

  // Whatever the parser lets through, a point the database refuses for what it holds costs
  // only itself: the interval is halved down to it, the rest written, its samples counted.
  it('drops only the point the database refuses, and counts its samples', async () => {
    const run = await createRun(server);
    const ingest = server.app.services.metricsIngest;
    const store = ingest.store.bind(ingest);
    vi.spyOn(ingest, 'store').mockImplementation(async (records, scope) => {
      if (records.some((r) => r.name === 'poison')) {
        throw Object.assign(new Error('invalid input syntax'), { code: '22P02' });
      }
      return store(records, scope);
    });
    const before = server.app.statsd.stats();
    const lines = [
      ...Array.from({ length: 20 }, (_, i) => `healthy.s${i}:${i}|c|#run:${run.id}`),
      `poison:1|c|#run:${run.id}`,
      `poison:2|c|#run:${run.id}`,
      `poison:3|c|#run:${run.id}`,
    ];
    await sendRaw(server.udpPort, [lines.join('\n')]);
    await until(() => server.app.statsd.stats().samples - before.samples >= 23);
    await server.app.statsd.flush();
    const after = server.app.statsd.stats();
    expect(after.droppedSamples - before.droppedSamples).toBe(3);
    expect(after.droppedPoints - before.droppedPoints).toBe(1);
    expect(after.backlogPoints).toBe(0);
    const { body } = await server.json(`/runs/${run.id}/series`, {}, seriesList);
    expect(body).toHaveLength(20);
    expect(body.reduce((n, s) => n + (s.stats.sum ?? 0), 0)).toBe((19 * 20) / 2);
  });

  it('drops a TCP line over 64 KiB and only it, however it is split', async () => {
    const run = await createRun(server);
    const before = server.app.statsd.stats();
    const { connect } = await import('node:net');
    const socket = connect(server.tcpPort, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // 10 MB of name in 1 MB writes, then its value: the tail must not become a line.
    socket.write(`first:1|c|#run:${run.id}\n`);
    for (let i = 0; i < 10; i++) socket.write('n'.repeat(1024 * 1024));
    socket.write(`:1|c|#run:${run.id}\nlast:2|c|#run:${run.id}\n`);
    await new Promise<void>((resolve) => socket.end(() => resolve()));
    await until(() => server.app.statsd.stats().samples - before.samples >= 2);
    await until(() => server.app.statsd.stats().malformed - before.malformed >= 1);
    const get = await series(run.id);
    expect(get('first').stats.sum).toBe(1);
    expect(get('last').stats.sum).toBe(2);
    const after = server.app.statsd.stats();
    expect(after.samples - before.samples).toBe(2);
    expect(after.malformed - before.malformed).toBe(1);
    const { body } = await server.json(`/runs/${run.id}/series`, {}, seriesList);
    expect(body.map((s) => s.name).sort()).toEqual(['first', 'last']);
  });
});

// StatsD has no authentication: a deployment binds the listener to one project.
describe.each(backends)('StatsD bound to a project (STATSD_PROJECT) on $name', (backend) => {
  const server = useMetricsServer(backend, {
    MESHBENCH_STATSD_FLUSH_MS: '200',
    STATSD_PROJECT: 'default',
  });

  it("writes to that project's runs only, tagged or matched by environment", async () => {
    const other = await server.json(
      '/projects',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `statsd-other-${process.pid}-${Date.now()}` }),
      },
      project,
    );
    const environment = `bound-${process.pid}-${Date.now()}`;
    const theirs = await createRun(server, { project: other.body.id, environment });
    const mine = await createRun(server); // the default project's
    const before = server.app.statsd.stats();
    expect(before.project).not.toBeNull();
    await sendRaw(server.udpPort, [
      `intruder.tagged:1|c|#run:${theirs.id}\n`,
      `intruder.env:1|c|#env:${environment}\n`,
      `welcome:3|c|#run:${mine.id}\n`,
    ]);
    await until(() => server.app.statsd.stats().samples - before.samples >= 3);
    await server.app.statsd.flush();
    const after = server.app.statsd.stats();
    expect(after.unmatched - before.unmatched).toBe(1); // the tagged intruder: refused
    expect(after.held - before.held).toBe(1); // the other: no run of the default project there
    const theirsSeries = await server.json(`/runs/${theirs.id}/series`, {}, seriesList);
    expect(theirsSeries.body).toEqual([]);
    const mineSeries = await server.json(`/runs/${mine.id}/series`, {}, seriesList);
    expect(mineSeries.body.map((s) => [s.name, s.stats.sum])).toEqual([['welcome', 3]]);
  });
});
