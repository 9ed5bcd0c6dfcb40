// A PostgreSQL restart under the running API: a cluster of the test's own (initdb on its own
// port) stopped in the middle of ingest and started again a few seconds later. The API, a
// process of its own, must answer 503 + Retry-After meanwhile (never 500, never crash), serve
// again without a restart, and have stored every acknowledged batch once; the OpenTelemetry
// JS SDK exporting across the outage must lose no increment.

import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Database, openDatabase } from '@meshbench/db';
import { propagation, run as runAnswer, seriesList } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { k6Stream } from '../ingest/results/k6-ndjson.test-fixtures.ts';
import { type ApiProcess, PROCESS_ADMIN_TOKEN, startApiProcess } from '../test/api-process.ts';
import { otelSender } from '../test/otel-sender.ts';
import { canMakeClusters, makeCluster, type PgCluster } from '../test/pg-cluster.ts';

const T0 = Date.parse('2026-02-01T10:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const AUTH = { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}` };
/** How long the cluster stays down (between its stop and its start). */
const OUTAGE_MS = 3_000;
const WRITERS = 3;
const LINES_PER_BATCH = 4_000;
const FORTIO = readFileSync(
  new URL(
    '../../../../fixtures/public/envoyproxy-nighthawk/fortio_data_small.json',
    import.meta.url,
  ),
  'utf8',
);

/** A k6 `--out json` stream (3 s of requests), which the results route takes as it arrives. */
const K6_TEXT = `${[
  ...k6Stream({ seed: 11, startMs: T0, seconds: 3, perSecond: 200 }).lines(),
].join('\n')}\n`;
const K6_PATH = (runId: string) => `/api/v1/runs/${runId}/results?format=k6-ndjson`;

/**
 * A streamed k6 upload whose first half is sent now and the rest when `finish` is called:
 * the stream is in the middle of its body when the database goes away.
 */
function streamUpload(url: string) {
  const req = httpRequest(url, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/x-ndjson' },
  });
  const answered = new Promise<Answer & { body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({
          at: Date.now(),
          status: res.statusCode ?? 0,
          retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
          body,
        }),
      );
    });
    req.on('error', reject);
  });
  answered.catch(() => {});
  const half = K6_TEXT.indexOf('\n', K6_TEXT.length / 2) + 1;
  req.write(K6_TEXT.slice(0, half));
  return {
    finish() {
      req.end(K6_TEXT.slice(half));
      return answered;
    },
  };
}

/** When a writer's proxy first applied change c1: spread over 0-5 s, some before it (< 0). */
const latencyMs = (w: number, b: number, i: number) =>
  ((w * 7919 + b * 104_729 + i * 31) % 5000) - 40;
const batchLines = (w: number, b: number) =>
  Array.from({ length: LINES_PER_BATCH }, (_, i) =>
    JSON.stringify({
      type: 'observation',
      change: 'c1',
      proxy: `w${w}-b${b}-p${i}`,
      at: iso(latencyMs(w, b, i)),
    }),
  );

/** An OTLP/JSON export of one gauge point for a run (the OTLP/JSON encoding of proto3). */
const gaugeExport = (runId: string) =>
  JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'outage.probe',
                gauge: {
                  dataPoints: [{ timeUnixNano: `${Date.now()}000000`, asDouble: 1 }],
                },
              },
            ],
          },
        ],
      },
    ],
  });

/** Nearest rank: the smallest value with at least p % of the values at or below it. */
const nearestRank = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;

interface Answer {
  at: number;
  status: number;
  retryAfter: string | null;
  code?: string;
}

/** A write of a project's detection settings (PUT /projects/{id}/detection). */
const detectionPut = {
  method: 'PUT',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ maxPValue: 0.01 }),
};

const describeIf = canMakeClusters ? describe : describe.skip;

describeIf('a PostgreSQL restart under the running API', () => {
  let cluster: PgCluster;
  let api: ApiProcess;
  let database: Database;

  beforeAll(async () => {
    cluster = await makeCluster();
    api = await startApiProcess({ DATABASE_URL: cluster.url });
    database = await openDatabase({ url: cluster.url, poolSize: 2 });
  });
  afterAll(async () => {
    await database?.close().catch(() => {});
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGTERM');
      await api.exited;
    }
    cluster?.remove();
  });

  /** Count of rows, read straight from the cluster. */
  async function count(query: ReturnType<typeof sql>): Promise<number> {
    const result = await database.db.execute(query);
    return (result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? -1;
  }

  it('answers 503 + Retry-After during the outage, then serves without a restart; every acknowledged batch is stored once', async () => {
    const pid = api.child.pid;
    const run = await api.json(
      '/runs',
      {
        method: 'POST',
        body: JSON.stringify({ benchmark: 'faults', scenario: 'outage', mesh: { name: 'istio' } }),
      },
      runAnswer,
    );
    const declared = await api.json(`/runs/${run.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: JSON.stringify({
        type: 'change',
        id: 'c1',
        kind: 'endpoint',
        target: 'hey',
        action: 'delete',
        at: iso(0),
      }),
    });
    expect(declared).toEqual({ accepted: 1, duplicate: false });

    const answers: Answer[] = [];
    const acknowledged: { w: number; b: number }[] = [];
    let writing = true;
    let acked = 0;
    const record = async (response: Response): Promise<Answer> => {
      const text = await response.text();
      const answer: Answer = {
        at: Date.now(),
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
      };
      try {
        answer.code = (JSON.parse(text) as { code?: string }).code;
      } catch {}
      answers.push(answer);
      if (response.status !== 200 && response.status !== 503)
        throw new Error(`${response.status} ${text}`);
      return answer;
    };
    // Each writer posts its batches one after the other, each under an Idempotency-Key, and
    // sends a refused batch again after the Retry-After it was given, as the CLI does.
    const writer = async (w: number) => {
      for (let b = 0; writing; b++) {
        const body = `${batchLines(w, b).join('\n')}\n`;
        for (;;) {
          const response = await fetch(`${api.url}/api/v1/runs/${run.id}/events`, {
            method: 'POST',
            headers: {
              ...AUTH,
              'content-type': 'application/x-ndjson',
              'idempotency-key': `w${w}-b${b}`,
            },
            body,
            signal: AbortSignal.timeout(30_000),
          }).catch((error: Error) => {
            const code = api.child.exitCode;
            throw new Error(
              code === null ? `no answer: ${error.message}` : `the API exited with ${code}`,
            );
          });
          const answer = await record(response);
          if (answer.status === 200) {
            acknowledged.push({ w, b });
            acked++;
            break;
          }
          await sleep(Number(answer.retryAfter) * 1000);
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    const failed = Promise.all(writers).then(
      () => undefined,
      (error: unknown) => error,
    );
    while (acked < 2 * WRITERS) await sleep(20);

    // A streamed k6 upload has sent half its body when the database goes.
    const inFlight = streamUpload(`${api.url}${K6_PATH(run.id)}`);
    // The cluster goes down with batches in the middle of their COPY.
    const stopping = Date.now();
    await cluster.stopAsync();
    const stopped = Date.now();
    // Its last line arrives during the outage: refused, as a batch is, and nothing kept.
    const streamed = await inFlight.finish();
    expect(streamed.status, streamed.body).toBe(503);
    expect(streamed.retryAfter).toBe('2');
    // Meanwhile the other routes: reads, the health check, a result file, an OTLP export, a
    // project's detection settings.
    const probes: Record<string, Answer[]> = {
      health: [],
      read: [],
      results: [],
      k6stream: [],
      otlp: [],
      detection: [],
    };
    const probe = async (name: string, path: string, init: RequestInit = {}) => {
      const response = await fetch(`${api.url}${path}`, {
        ...init,
        headers: { ...AUTH, ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      const answer: Answer = {
        at: Date.now(),
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
      };
      try {
        const parsed = JSON.parse(text) as { code?: string; status?: string };
        answer.code = parsed.code ?? parsed.status;
      } catch {
        answer.code = text.includes('database') ? 'database_unavailable (protobuf)' : text;
      }
      probes[name]?.push(answer);
    };
    while (Date.now() - stopped < OUTAGE_MS) {
      await Promise.all([
        probe('health', '/api/v1/health'),
        probe('read', `/api/v1/runs/${run.id}/changes`),
        probe('results', `/api/v1/runs/${run.id}/results?format=fortio`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: FORTIO,
        }),
        probe('k6stream', K6_PATH(run.id), {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: K6_TEXT,
        }),
        probe('otlp', '/v1/metrics', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: gaugeExport(run.id),
        }),
        probe('detection', `/api/v1/projects/${run.projectId}/detection`, detectionPut),
      ]);
      await sleep(250);
    }
    const starting = Date.now();
    await cluster.startAsync();
    const started = Date.now();
    // The API's own recovery: its health check answers 200 again, the process untouched.
    let healthy = Number.NaN;
    for (let i = 0; i < 200 && Number.isNaN(healthy); i++) {
      if ((await fetch(`${api.url}/api/v1/health`)).status === 200) healthy = Date.now();
      else await sleep(25);
    }
    const ackedAtStart = acked;
    while (acked < ackedAtStart + 2 * WRITERS) await sleep(20);
    writing = false;
    expect(await failed).toBeUndefined();

    // Never a 500, and the very process that was there before.
    expect(api.child.exitCode).toBeNull();
    expect(api.child.pid).toBe(pid);
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([200, 503]);
    const refused = answers.filter((a) => a.status === 503);
    for (const a of refused) {
      expect(a.retryAfter).toBe('2');
      expect(a.code).toBe('database_unavailable');
    }
    for (const [name, list] of Object.entries(probes)) {
      expect(list.length, name).toBeGreaterThan(0);
      for (const a of list) {
        expect(a.status, `${name}: ${a.code}`).toBe(503);
        expect(a.retryAfter, name).toBe('2');
      }
    }
    expect(probes.health?.every((a) => a.code === 'database_unavailable')).toBe(true);
    const health = await fetch(`${api.url}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', database: 'postgres' });
    // The refused writes go through once the database is back: the k6 stream sent again is
    // stored once, and no earlier attempt left a row.
    const resent = await fetch(`${api.url}${K6_PATH(run.id)}`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/x-ndjson' },
      body: K6_TEXT,
    });
    expect(resent.status).toBe(201);
    const { imported } = (await resent.json()) as { imported: number };
    expect(imported).toBeGreaterThan(0);
    expect(
      await count(
        sql`select count(*)::int as n from load_results where run_id = ${run.id} and format = 'k6-ndjson'`,
      ),
    ).toBe(imported);
    expect(
      await count(
        sql`select count(*)::int as n from load_results where run_id = ${run.id} and format <> 'k6-ndjson'`,
      ),
    ).toBe(0);
    const detection = await fetch(`${api.url}/api/v1/projects/${run.projectId}/detection`, {
      ...detectionPut,
      headers: { ...AUTH, ...detectionPut.headers },
    });
    expect(detection.status).toBe(200);
    expect(await detection.json()).toMatchObject({
      projectId: run.projectId,
      detection: { maxPValue: 0.01 },
      set: { maxPValue: 0.01 },
    });

    // Every acknowledged batch is stored, once; nothing else is.
    const keys = new Set(acknowledged.map(({ w, b }) => `${w}/${b}`));
    expect(keys.size).toBe(acknowledged.length);
    const expected = acknowledged.flatMap(({ w, b }) =>
      Array.from({ length: LINES_PER_BATCH }, (_, i) => latencyMs(w, b, i)),
    );
    expect(
      await count(sql`select count(*)::int as n from observations where run_id = ${run.id}`),
    ).toBe(expected.length);
    expect(
      await count(
        sql`select count(distinct proxy)::int as n from observations where run_id = ${run.id}`,
      ),
    ).toBe(expected.length);
    // The kept summary equals a recomputation from what was acknowledged.
    expected.sort((a, b) => a - b);
    const summary = await api.json(
      `/runs/${run.id}/changes/c1/propagation?percentiles=1,50,90,99,100`,
      {},
      propagation,
    );
    expect(summary).toMatchObject({
      count: expected.length,
      observations: expected.length,
      repeats: 0,
      beforeChange: expected.filter((l) => l < 0).length,
      minMs: expected[0],
      maxMs: expected[expected.length - 1],
      percentiles: [1, 50, 90, 99, 100].map((p) => ({ p, ms: nearestRank(expected, p) })),
    });

    const firstRefused = refused[0]?.at ?? Number.NaN;
    const lastRefused = refused[refused.length - 1]?.at ?? Number.NaN;
    const firstAfter = answers.find((a) => a.status === 200 && a.at >= started)?.at ?? Number.NaN;
    console.info(
      `outage: pg_ctl stop ${stopped - stopping} ms, down ${starting - stopped} ms, pg_ctl start ${started - starting} ms; ` +
        `${answers.length} batch answers, ${refused.length} x 503 (first ${firstRefused - stopping} ms after the stop began, last ${lastRefused - started} ms after the start), ` +
        `probes: ${Object.entries(probes)
          .map(([k, v]) => `${k} ${v.length} x 503`)
          .join(', ')}; first batch stored ${firstAfter - started} ms after the cluster was up; ` +
        `healthy ${healthy - started} ms after the cluster was up; ` +
        `${acknowledged.length} batches (${expected.length} rows) acknowledged and stored once`,
    );
    expect(healthy - started).toBeLessThan(1_000);
    // Served again at once once the database is back: within the 2 s a client waits.
    expect(firstAfter - started).toBeLessThan(5_000);
  }, 90_000);

  it('loses no increment of the OpenTelemetry JS SDK exporting across the outage', async () => {
    const run = await api.json(
      '/runs',
      {
        method: 'POST',
        body: JSON.stringify({
          benchmark: 'faults',
          scenario: 'otlp-outage',
          mesh: { name: 'istio' },
        }),
      },
      runAnswer,
    );
    // In front of the API, passing everything on and noting what the exporter was answered.
    const seen: Answer[] = [];
    const proxy: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const upstream = httpRequest(
          `${api.url}${req.url}`,
          { method: req.method, headers: req.headers },
          (answer) => {
            const body: Buffer[] = [];
            answer.on('data', (c: Buffer) => body.push(c));
            answer.on('end', () => {
              seen.push({
                at: Date.now(),
                status: answer.statusCode ?? 0,
                retryAfter: (answer.headers['retry-after'] as string | undefined) ?? null,
              });
              res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
            });
          },
        );
        upstream.on('error', () => res.writeHead(502).end());
        upstream.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      // Delta temporality: an export the SDK gives up on takes its increments with it (a
      // cumulative stream would hide the loss in its next point).
      const sdk = otelSender({
        url: `http://127.0.0.1:${port}/v1/metrics`,
        token: PROCESS_ADMIN_TOKEN,
        temporality: 'delta',
        intervalMs: 1000,
        diag: true,
        resource: { 'service.name': 'pilot', 'meshbench.run': run.id },
      });
      let recorded = 0;
      let adding = true;
      const adder = (async () => {
        for (let i = 1; adding; i++) {
          const value = (i % 7) + 1;
          await sdk.send({ op: 'add', name: 'pilot.pushes', value });
          recorded += value;
          await sleep(50);
        }
      })();
      await sleep(2_500);
      const stopping = Date.now();
      await cluster.stopAsync();
      await sleep(OUTAGE_MS);
      await cluster.startAsync();
      const started = Date.now();
      await sleep(2_500);
      adding = false;
      await adder;
      await sdk.close(); // the last export, and every retry still pending, finished
      expect(api.child.exitCode).toBeNull();

      const series = await api.json(`/runs/${run.id}/series`, {}, seriesList);
      const pushes = series.find((s) => s.name === 'pilot.pushes');
      const timeline = seen
        .map((a) => `${a.at - stopping} ms: ${a.status} ${a.retryAfter ?? ''}`)
        .join('; ');
      expect(
        pushes?.stats.sum,
        `stop began at 0, started at ${started - stopping} ms; answers: ${timeline}; the SDK: ${sdk.stderr()}`,
      ).toBe(recorded);
      const statuses = seen.map((a) => a.status);
      expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
      const refused = seen.filter((a) => a.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const a of refused) expect(a.retryAfter).toBe('2');
      const lastRefused = refused[refused.length - 1]?.at ?? Number.NaN;
      console.info(
        `OTLP across the outage: ${seen.length} exports answered, ${refused.length} x 503 (the last ${lastRefused - started} ms after the start, ${lastRefused - stopping} ms after the stop began); ` +
          `${recorded} recorded, ${pushes?.stats.sum} stored in ${pushes?.stats.count} points`,
      );
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  }, 90_000);
});
