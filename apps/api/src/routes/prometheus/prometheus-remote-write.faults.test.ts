// The real sender: Debian's Prometheus (2.42, /usr/bin/prometheus), started here with its own
// data directory and port, scrapes a small exporter this test runs (prom-client) and
// remote-writes (1.0) to the built API through a proxy of this test's. What the exporter
// exposed is read back through the API, exactly: across a counter reset, an answer lost
// after the API stored a batch (Prometheus sends it again: stored once), and an API restart
// (Prometheus retries while it is down: nothing lost, nothing counted twice).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ingestStats,
  run as runAnswer,
  type Series,
  seriesList,
  seriesPoints,
} from '@meshbench/schema';
import client from 'prom-client';
import snappy from 'snappy';
import { afterAll, describe, expect, it } from 'vitest';
import { nearestRank } from '../../domain/nearest-rank.ts';
import {
  type ApiProcess,
  freePort,
  processBackends,
  startApiProcess,
} from '../../test/api-process.ts';
import { WriteRequest } from '../../test/remote-write-proto.ts';

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` returns a value, polling; fails after `ms` naming what it waited for. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** The exporter: a counter that can be reset (a process restart), a gauge, a histogram. */
function exporter() {
  const stable = new client.Registry();
  let resettable = new client.Registry();
  const makeCounter = (registry: client.Registry) => {
    const c = new client.Counter({
      name: 'demo_requests_total',
      help: 'requests',
      labelNames: ['code'],
      registers: [registry],
    });
    // Exposed at 0 from the start (a labelled series is otherwise shown once first counted).
    c.inc({ code: '200' }, 0);
    return c;
  };
  let requests = makeCounter(resettable);
  const inflight = new client.Gauge({
    name: 'demo_inflight',
    help: 'in flight',
    registers: [stable],
  });
  const latency = new client.Histogram({
    name: 'demo_latency_seconds',
    help: 'latency',
    buckets: [0.1, 0.5, 1],
    registers: [stable],
  });
  let scrapes = 0;
  const server = createServer(async (_req, res) => {
    scrapes++;
    const text = (await resettable.metrics()) + (await stable.metrics());
    res.writeHead(200, { 'content-type': stable.contentType }).end(text);
  });
  return {
    server,
    scrapes: () => scrapes,
    inc: (n: number) => requests.inc({ code: '200' }, n),
    set: (v: number) => inflight.set(v),
    observe: (v: number) => latency.observe(v),
    reset() {
      resettable = new client.Registry();
      requests = makeCounter(resettable);
    },
  };
}

/** Whether a 1.0 request carries series (Prometheus also sends metadata alone). */
function carriesSamples(body: Buffer): boolean {
  try {
    const request = WriteRequest.decode(snappy.uncompressSync(body) as Buffer) as unknown as {
      timeseries?: unknown[];
    };
    return (request.timeseries?.length ?? 0) > 0;
  } catch {
    return false;
  }
}

/**
 * Between Prometheus and the API: forwards every request; `loseNext()` makes the next
 * write's answer lost after the API has stored it (Prometheus gets a 503 and sends the
 * batch again).
 */
function proxy(target: () => string) {
  let lose = 0;
  let lost = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const upstream = httpRequest(
        `${target()}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            if (lose > 0 && answer.statusCode === 204 && carriesSamples(Buffer.concat(chunks))) {
              lose--;
              lost++;
              res.writeHead(503, { 'retry-after': '1' }).end('answer lost\n');
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      upstream.on('error', () => res.writeHead(502).end('the API is away\n'));
      upstream.end(Buffer.concat(chunks));
    });
  });
  return {
    server,
    loseNext: () => {
      lose++;
    },
    lost: () => lost,
  };
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe.each(processBackends)(
  'Prometheus remote write from Prometheus 2.42 on $name',
  (backend) => {
    let api: ApiProcess | undefined;
    let prometheus: ChildProcess | undefined;
    const dirs: string[] = [];
    const servers: Server[] = [];
    afterAll(async () => {
      prometheus?.kill('SIGTERM');
      if (prometheus && prometheus.exitCode === null) {
        await new Promise((r) => prometheus?.once('exit', r));
      }
      if (api) {
        api.child.kill('SIGTERM');
        await api.exited;
      }
      for (const s of servers) await close(s);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it('stores what the exporter exposed, across a reset, a lost answer and an API restart', async () => {
      const env = { ...backend.env(), PORT: String(await freePort()) };
      api = await startApiProcess(env);
      const run = await api.json(
        '/runs',
        {
          method: 'POST',
          body: JSON.stringify({
            benchmark: 'prometheus-remote-write',
            scenario: `faults-${process.pid}-${Date.now()}`,
            mesh: { name: 'istio', version: '1.22' },
            startedAt: new Date(Date.now() - 1000).toISOString(),
          }),
        },
        runAnswer,
      );
      const target = exporter();
      const exporterPort = await listen(target.server);
      servers.push(target.server);
      const front = proxy(() => (api as ApiProcess).url);
      const proxyPort = await listen(front.server);
      servers.push(front.server);

      const dir = mkdtempSync(join(tmpdir(), 'meshbench-prometheus-'));
      dirs.push(dir);
      const config = join(dir, 'prometheus.yml');
      writeFileSync(
        config,
        [
          'global:',
          '  scrape_interval: 1s',
          '  external_labels:',
          `    meshbench_run: ${run.id}`,
          'scrape_configs:',
          '  - job_name: exporter',
          '    static_configs:',
          `      - targets: ['127.0.0.1:${exporterPort}']`,
          'remote_write:',
          `  - url: http://127.0.0.1:${proxyPort}/api/v1/write`,
          '    authorization:',
          '      credentials: faults-admin-token-0123456789',
          '    queue_config:',
          '      batch_send_deadline: 500ms',
          '      max_samples_per_send: 10000',
          '      min_backoff: 100ms',
          '      max_backoff: 1s',
          '',
        ].join('\n'),
      );
      const promPort = await freePort();
      prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${promPort}`,
          '--storage.tsdb.retention.time=1h',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let said = '';
      prometheus.stderr?.on('data', (c: Buffer) => {
        said = (said + c.toString()).slice(-8000);
      });

      const seriesNow = async () =>
        (await (api as ApiProcess).json(`/runs/${run.id}/series`, {}, seriesList)) as Series[];
      const one = (list: Series[], name: string) => list.find((s) => s.name === name);
      const scraped = async (n: number) => {
        const from = target.scrapes();
        await until(`${n} scrapes`, async () => (target.scrapes() >= from + n ? true : undefined));
      };

      // The first scrape sees everything at zero: the reference increases are counted from.
      target.set(0);
      await scraped(2);
      await until('the exporter series in the run', async () => {
        const list = await seriesNow();
        return one(list, 'demo_requests_total') && one(list, 'demo_latency_seconds')
          ? list
          : undefined;
      });

      target.inc(5);
      target.set(3);
      for (const v of [0.05, 0.3, 2]) target.observe(v);
      await scraped(2);
      // The exporter restarts: its counter starts again from 0, and counts 4.
      target.reset();
      target.inc(4);
      await scraped(2);
      await until('the first increases', async () => {
        const c = one(await seriesNow(), 'demo_requests_total');
        return c?.stats.sum === 9 ? c : undefined;
      });

      // A batch stored whose answer is lost: Prometheus sends it again, stored once.
      front.loseNext();
      target.inc(1);
      await until('a lost answer', async () => (front.lost() > 0 ? true : undefined));
      const stats = await until('the retried batch acknowledged', async () => {
        const s = await (api as ApiProcess).json('/ingest/stats', {}, ingestStats);
        return s.prometheus.duplicates > 0 ? s : undefined;
      });
      expect(stats.prometheus.refused).toBe(0);

      // The API restarts on the same data while the exporter goes on.
      api.child.kill('SIGTERM');
      await api.exited;
      target.inc(2);
      target.set(7);
      target.observe(0.7);
      await scraped(3);
      api = await startApiProcess(env);
      await scraped(2);

      // 5 + 4 (after the reset) + 1 + 2; 4 observations: (0,0.1] 0.05, (0.1,0.5] 0.3,
      // (0.5,1] 0.7, (1,+Inf) 2; their sum 3.05; the gauge's last value 7, highest 7.
      const list = await until(
        'every value after the restart',
        async () => {
          const l = await seriesNow();
          const h = one(l, 'demo_latency_seconds');
          return one(l, 'demo_requests_total')?.stats.sum === 12 &&
            one(l, 'demo_inflight')?.stats.last === 7 &&
            h?.stats.count === 4
            ? l
            : undefined;
        },
        45_000,
      ).catch((error) => {
        throw new Error(`${(error as Error).message}; Prometheus said:\n${said}`);
      });
      const requests = one(list, 'demo_requests_total') as Series;
      expect(requests).toMatchObject({ kind: 'counter', source: 'prometheus' });
      expect(requests.tags).toMatchObject({ code: '200', job: 'exporter' });
      expect(requests.stats.sum).toBe(12);
      expect(one(list, 'demo_inflight')?.stats).toMatchObject({ last: 7, max: 7 });
      const latency = one(list, 'demo_latency_seconds') as Series;
      expect(latency.kind).toBe('histogram');
      expect(latency.stats.count).toBe(4);
      expect(latency.stats.sum).toBeCloseTo(3.05, 12);
      // Rank 2 of 4 lies in (0.1, 0.5]; rank 4 (P99) in (1, +Inf), its upper bound unknown.
      const p = (q: number) => latency.stats.percentiles?.find((x) => x.p === q);
      expect(p(50)).toMatchObject({ lower: 0.1, upper: 0.5 });
      expect(p(99)).toMatchObject({ lower: 1, upper: null });
      // No classic histogram part left as a series of its own: every family arrived whole.
      expect(list.filter((s) => /_(bucket|sum|count)$/.test(s.name))).toEqual([]);
      // A real Prometheus scraping, an API restart and a lost answer: 24-49 s here at load 20.
    }, 180_000);
  },
);

/** The split exporter's histogram: its bounds, and what each label set observes. */
const SPLIT_BOUNDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1];
const OBSERVED: Record<string, number[]> = {
  '/a': [
    0.003, 0.007, 0.02, 0.03, 0.04, 0.06, 0.07, 0.08, 0.09, 0.12, 0.2, 0.3, 0.4, 0.45, 0.6, 0.7,
    0.9, 1.5, 2, 3,
  ],
  '/b': [0.004, 0.06, 0.07, 0.3, 0.3, 0.35, 0.8, 0.9, 0.95, 4],
};

describe.each(processBackends)(
  'A classic histogram that Prometheus 2.42 splits across requests on $name',
  (backend) => {
    let api: ApiProcess | undefined;
    let prometheus: ChildProcess | undefined;
    const dirs: string[] = [];
    const servers: Server[] = [];
    afterAll(async () => {
      prometheus?.kill('SIGTERM');
      if (prometheus && prometheus.exitCode === null) {
        await new Promise((r) => prometheus?.once('exit', r));
      }
      if (api) {
        api.child.kill('SIGTERM');
        await api.exited;
      }
      for (const s of servers) await close(s);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it('stores the histogram the exporter exposed, with 3 shards of 5 samples a request', async () => {
      const env = { ...backend.env(), PORT: String(await freePort()) };
      api = await startApiProcess(env);
      const run = await api.json(
        '/runs',
        {
          method: 'POST',
          body: JSON.stringify({
            benchmark: 'prometheus-remote-write',
            scenario: `split-${process.pid}-${Date.now()}`,
            mesh: { name: 'istio', version: '1.22' },
            startedAt: new Date(Date.now() - 1000).toISOString(),
          }),
        },
        runAnswer,
      );
      const registry = new client.Registry();
      const histogram = new client.Histogram({
        name: 'demo_split_seconds',
        help: 'latency by route',
        labelNames: ['route'],
        buckets: SPLIT_BOUNDS,
        registers: [registry],
      });
      for (const route of Object.keys(OBSERVED)) histogram.zero({ route });
      let scrapes = 0;
      const target = createServer(async (_req, res) => {
        scrapes++;
        res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
      });
      const exporterPort = await listen(target);
      servers.push(target);

      const dir = mkdtempSync(join(tmpdir(), 'meshbench-prometheus-split-'));
      dirs.push(dir);
      const config = join(dir, 'prometheus.yml');
      // 3 shards, each sending at most 5 samples a request: a scrape's 2 x 9 histogram
      // series (and Prometheus' own up and scrape_* series) go in several requests.
      writeFileSync(
        config,
        [
          'global:',
          '  scrape_interval: 1s',
          '  external_labels:',
          `    meshbench_run: ${run.id}`,
          'scrape_configs:',
          '  - job_name: exporter',
          '    static_configs:',
          `      - targets: ['127.0.0.1:${exporterPort}']`,
          'remote_write:',
          `  - url: ${api.url}/api/v1/write`,
          '    authorization:',
          '      credentials: faults-admin-token-0123456789',
          '    queue_config:',
          '      min_shards: 3',
          '      max_shards: 3',
          '      max_samples_per_send: 5',
          '      batch_send_deadline: 200ms',
          '      min_backoff: 100ms',
          '      max_backoff: 1s',
          '',
        ].join('\n'),
      );
      const promPort = await freePort();
      prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${promPort}`,
          '--storage.tsdb.retention.time=1h',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let said = '';
      prometheus.stderr?.on('data', (c: Buffer) => {
        said = (said + c.toString()).slice(-8000);
      });
      const seriesNow = async () =>
        (await (api as ApiProcess).json(`/runs/${run.id}/series`, {}, seriesList)) as Series[];
      const scraped = async (n: number) => {
        const from = scrapes;
        await until(`${n} scrapes`, async () => (scrapes >= from + n ? true : undefined));
      };
      const ofRoute = (list: Series[], route: string) =>
        list.find((s) => s.name === 'demo_split_seconds' && s.tags.route === route);

      // The first points, all zero: what the run's increases are counted from.
      await scraped(2);
      await until('both label sets in the run', async () => {
        const list = await seriesNow();
        return ofRoute(list, '/a') && ofRoute(list, '/b') ? list : undefined;
      }).catch(async (error) => {
        const names = (await seriesNow()).map((x) => `${x.name}${JSON.stringify(x.tags)}`);
        throw new Error(
          `${(error as Error).message}; series: ${names.join(', ')}; Prometheus said:\n${said}`,
        );
      });
      for (const [route, values] of Object.entries(OBSERVED)) {
        for (const v of values) histogram.observe({ route }, v);
      }
      await scraped(3);
      const list = await until(
        'every observation',
        async () => {
          const l = await seriesNow();
          return Object.entries(OBSERVED).every(
            ([route, values]) => ofRoute(l, route)?.stats.count === values.length,
          )
            ? l
            : undefined;
        },
        45_000,
      ).catch(async (error) => {
        const got = (await seriesNow()).map(
          (x) => `${x.name}${JSON.stringify(x.tags)} ${x.stats.count}`,
        );
        throw new Error(
          `${(error as Error).message}; series: ${got.join(', ')}; Prometheus said:\n${said}`,
        );
      });
      // Every part joined its point: no bucket, sum or count left as a series of its own.
      expect(list.filter((s) => /^demo_split_seconds_/.test(s.name))).toEqual([]);
      const stats = await (api as ApiProcess).json('/ingest/stats', {}, ingestStats);
      expect(stats.prometheus.refused).toBe(0);

      for (const [route, values] of Object.entries(OBSERVED)) {
        const s = ofRoute(list, route) as Series;
        expect(s.kind).toBe('histogram');
        expect(s.stats.count).toBe(values.length);
        expect(s.stats.sum).toBeCloseTo(
          values.reduce((a, b) => a + b, 0),
          9,
        );
        // Every rank's bucket is the exporter's: the histogram stored is the one exposed.
        const ps = values.map((_, i) => Math.round(((i + 1) / values.length) * 10_000) / 100);
        const points = await (api as ApiProcess).json(
          `/runs/${run.id}/series/${s.id}/points?percentiles=${ps.join(',')}`,
          {},
          seriesPoints,
        );
        const sorted = [...values].sort((a, b) => a - b);
        for (const p of ps) {
          const v = sorted[nearestRank(p, values.length) - 1] as number;
          const bucket = SPLIT_BOUNDS.findIndex((b) => v <= b);
          const got = points.series.stats.percentiles?.find((x) => x.p === p);
          expect({ route, p, upper: got?.upper }).toEqual({
            route,
            p,
            upper: bucket < 0 ? null : SPLIT_BOUNDS[bucket],
          });
          const below = bucket < 0 ? SPLIT_BOUNDS.length - 1 : bucket - 1;
          if (below >= 0) {
            expect({ route, p, lower: got?.lower }).toEqual({
              route,
              p,
              lower: SPLIT_BOUNDS[below],
            });
          }
        }
      }
      const metrics = await fetch(`${(api as ApiProcess).url}/metrics`).then((r) => r.text());
      const assembled = /meshbench_prometheus_write_histograms_assembled_total (\d+)/.exec(metrics);
      expect(Number(assembled?.[1])).toBeGreaterThan(0);
    }, 300_000);
  },
);
