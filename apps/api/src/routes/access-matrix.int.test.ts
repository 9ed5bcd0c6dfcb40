// Every write route of the OpenAPI document, called with no token, another project's token,
// the project's own token and the admin token: the status each must get. A route added
// without a row here fails the first test, so no write path escapes the matrix.
import {
  alert,
  createdReport,
  createdToken,
  finishedRun,
  otlpExportLogsResponse,
  otlpExportMetricsResponse,
  project as projectAnswer,
  run as runAnswer,
  seriesList,
  threshold,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkAnswer } from '../test/answer.ts';
import { backends, ndjson, TEST_ADMIN_TOKEN, useServer } from '../test/harness.ts';
import { CONTENT_TYPE_V1, compress, encodeV1 } from '../test/remote-write-proto.ts';

type Who = 'none' | 'other' | 'own' | 'admin';
const WHO: Who[] = ['none', 'other', 'own', 'admin'];

interface Call {
  path: string;
  init: RequestInit;
}

interface Fixture {
  /** A private project "own" writes to, and its token. */
  own: { id: string; name: string; token: string };
  /** Another private project, whose token is "other". */
  other: { id: string; name: string; token: string };
  /** A run of the own project, made fresh for each call that needs one. */
  run: () => Promise<{ id: string; slug: string }>;
  admin: <S extends z.ZodType>(path: string, init: RequestInit, schema: S) => Promise<z.output<S>>;
}

interface Row {
  /** The call, made fresh for each principal (writes change what they write to). */
  call: (f: Fixture) => Promise<Call>;
  expect: Record<Who, number>;
}

const T0 = '2026-02-01T10:00:00.000Z';
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const runScoped = (ok: number) => ({ none: 401, other: 403, own: ok, admin: ok });

/** A Fortio result file: the smallest one the results route stores. */
const FORTIO = JSON.stringify({
  RunType: 'HTTP',
  Labels: 'matrix',
  StartTime: T0,
  RequestedQPS: '100',
  RequestedDuration: '10s',
  ActualQPS: 99.9,
  ActualDuration: 10_000_000_000,
  NumThreads: 4,
  DurationHistogram: {
    Count: 2,
    Min: 0.001,
    Max: 0.002,
    Sum: 0.003,
    Avg: 0.0015,
    StdDev: 0.0005,
    Data: [{ Start: 0.001, End: 0.002, Percent: 100, Count: 2 }],
    Percentiles: [{ Percentile: 50, Value: 0.0015 }],
  },
  RetCodes: { '200': 2 },
});

/** A Remote-Write 1.0 request of one gauge sample labelled with the run. */
const remoteWrite = (runId: string) =>
  compress(
    encodeV1({
      timeseries: [
        {
          labels: [
            { name: '__name__', value: 'matrix_gauge' },
            { name: 'meshbench_run', value: runId },
          ],
          samples: [{ value: 7, timestamp: Date.now() }],
        },
      ],
    }),
  );

/** An OTLP/JSON export of one gauge point tagged with the run. */
const otlpLog = (runId: string) =>
  JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeLogs: [
          {
            logRecords: [
              {
                eventName: 'meshbench.lifecycle',
                timeUnixNano: String(Date.now() * 1e6),
                attributes: [
                  { key: 'phase', value: { stringValue: 'running' } },
                  { key: 'entity', value: { stringValue: 'alloc-1' } },
                ],
              },
            ],
          },
        ],
      },
    ],
  });

const otlp = (runId: string) =>
  JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'matrix.gauge',
                gauge: {
                  dataPoints: [{ timeUnixNano: String(Date.now() * 1e6), asDouble: 1 }],
                },
              },
            ],
          },
        ],
      },
    ],
  });

const ROWS: Record<string, Row> = {
  'POST /api/v1/runs': {
    call: async (f) => ({
      path: '/api/v1/runs',
      init: json('POST', {
        benchmark: 'matrix',
        scenario: 's',
        mesh: { name: 'consul' },
        project: f.own.id,
      }),
    }),
    expect: runScoped(201),
  },
  'PATCH /api/v1/runs/{id}': {
    call: async (f) => ({
      path: `/api/v1/runs/${(await f.run()).id}`,
      init: json('PATCH', {}),
    }),
    expect: runScoped(200),
  },
  'DELETE /api/v1/runs/{id}': {
    call: async (f) => ({
      path: `/api/v1/runs/${(await f.run()).id}`,
      init: { method: 'DELETE' },
    }),
    expect: runScoped(204),
  },
  'POST /api/v1/runs/{id}/events': {
    call: async (f) => ({
      path: `/api/v1/runs/${(await f.run()).id}/events`,
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: ndjson([
          { type: 'change', id: 'c1', kind: 'endpoint', target: 't', action: 'add', at: T0 },
        ]),
      },
    }),
    expect: runScoped(200),
  },
  'POST /api/v1/runs/{id}/results': {
    call: async (f) => ({
      path: `/api/v1/runs/${(await f.run()).id}/results?format=fortio`,
      init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: FORTIO },
    }),
    expect: runScoped(201),
  },
  'POST /api/v1/reports': {
    call: async (f) => ({
      path: '/api/v1/reports',
      init: json('POST', { runs: [(await f.run()).id] }),
    }),
    expect: runScoped(201),
  },
  'DELETE /api/v1/reports/{slug}': {
    call: async (f) => {
      const report = await f.admin(
        '/api/v1/reports',
        json('POST', { runs: [(await f.run()).id] }),
        createdReport,
      );
      return { path: `/api/v1/reports/${report.slug}`, init: { method: 'DELETE' } };
    },
    expect: runScoped(204),
  },
  'POST /api/v1/projects': {
    call: async () => ({
      path: '/api/v1/projects',
      init: json('POST', { name: `matrix-${Math.random().toString(36).slice(2)}` }),
    }),
    // Projects are the admin's to make, whoever else asks.
    expect: { none: 401, other: 403, own: 403, admin: 201 },
  },
  'POST /api/v1/projects/{id}/tokens': {
    call: async (f) => ({
      path: `/api/v1/projects/${f.own.id}/tokens`,
      init: json('POST', { name: 'matrix' }),
    }),
    expect: runScoped(201),
  },
  'POST /api/v1/projects/{id}/thresholds': {
    call: async (f) => ({
      path: `/api/v1/projects/${f.own.name}/thresholds`,
      init: json('POST', { benchmark: 'matrix', rule: 'p99<1000' }),
    }),
    expect: runScoped(201),
  },
  'PUT /api/v1/projects/{id}/detection': {
    call: async (f) => ({
      path: `/api/v1/projects/${f.own.id}/detection`,
      init: json('PUT', { maxPValue: 0.01 }),
    }),
    expect: runScoped(200),
  },
  'PUT /api/v1/projects/{id}/retention': {
    call: async (f) => ({
      path: `/api/v1/projects/${f.own.id}/retention`,
      init: json('PUT', { rawRetentionDays: 365 }),
    }),
    expect: runScoped(200),
  },
  'DELETE /api/v1/thresholds/{id}': {
    call: async (f) => {
      const t = await f.admin(
        `/api/v1/projects/${f.own.id}/thresholds`,
        json('POST', { benchmark: 'matrix', rule: 'p99<1000' }),
        threshold,
      );
      return { path: `/api/v1/thresholds/${t.id}`, init: { method: 'DELETE' } };
    },
    expect: runScoped(204),
  },
  'PATCH /api/v1/alerts/{id}': {
    call: async (f) => {
      // A finished run without observations fails any gate: an alert of the own project.
      await f.admin(
        `/api/v1/projects/${f.own.id}/thresholds`,
        json('POST', { benchmark: 'matrix', rule: 'p99<1000' }),
        threshold,
      );
      const r = await f.run();
      await f.admin(`/api/v1/runs/${r.id}`, json('PATCH', {}), finishedRun);
      const list = await f.admin(
        `/api/v1/projects/${f.own.id}/alerts`,
        { method: 'GET' },
        z.array(alert),
      );
      const a = list.find((x) => x.runId === r.id);
      if (!a) throw new Error('the failed gate left no alert');
      return { path: `/api/v1/alerts/${a.id}`, init: json('PATCH', { state: 'acknowledged' }) };
    },
    expect: runScoped(200),
  },
  'DELETE /api/v1/tokens/{id}': {
    call: async (f) => {
      const t = await f.admin(
        `/api/v1/projects/${f.own.id}/tokens`,
        json('POST', { name: 'to-revoke' }),
        createdToken,
      );
      return { path: `/api/v1/tokens/${t.id}`, init: { method: 'DELETE' } };
    },
    expect: runScoped(204),
  },
  'POST /v1/metrics': {
    call: async (f) => ({
      path: '/v1/metrics',
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: otlp((await f.run()).id),
      },
    }),
    // The request is any writer's; which runs its points may reach is per point (below).
    expect: { none: 401, other: 200, own: 200, admin: 200 },
  },
  'POST /v1/logs': {
    call: async (f) => ({
      path: '/v1/logs',
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: otlpLog((await f.run()).id),
      },
    }),
    // As /v1/metrics: a record naming a run its token may not write is rejected (below).
    expect: { none: 401, other: 200, own: 200, admin: 200 },
  },
  'POST /api/v1/write': {
    call: async (f) => ({
      path: '/api/v1/write',
      init: {
        method: 'POST',
        headers: { 'content-type': CONTENT_TYPE_V1, 'content-encoding': 'snappy' },
        body: remoteWrite((await f.run()).id),
      },
    }),
    // Any writer's request; a sample naming a run its token may not write is not written,
    // and remote write may not answer 2xx then.
    expect: { none: 401, other: 400, own: 204, admin: 204 },
  },
};

/** Reads that only a writer of the project may make (its tokens and thresholds). */
const WRITER_READS: Record<string, Row> = {
  'GET /api/v1/projects/{id}/tokens': {
    call: async (f) => ({ path: `/api/v1/projects/${f.own.id}/tokens`, init: {} }),
    expect: runScoped(200),
  },
  'GET /api/v1/projects/{id}/thresholds': {
    call: async (f) => ({ path: `/api/v1/projects/${f.own.id}/thresholds`, init: {} }),
    expect: runScoped(200),
  },
};

describe.each(backends)('write access on $name', (backend) => {
  const server = useServer(backend);

  async function fixture(): Promise<Fixture> {
    const admin = async <S extends z.ZodType>(
      path: string,
      init: RequestInit,
      schema: S,
    ): Promise<z.output<S>> => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
      const response = await fetch(`${server.url}${path}`, { ...init, headers });
      const text = await response.text();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
      return checkAnswer(path, response.status, JSON.parse(text), schema);
    };
    const project = async () => {
      const name = `matrix-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const p = await admin(
        '/api/v1/projects',
        json('POST', { name, visibility: 'private' }),
        projectAnswer,
      );
      const t = await admin(
        `/api/v1/projects/${p.id}/tokens`,
        json('POST', { name: 'matrix' }),
        createdToken,
      );
      return { id: p.id, name, token: t.token };
    };
    const own = await project();
    const other = await project();
    const run = () =>
      admin(
        '/api/v1/runs',
        json('POST', {
          benchmark: 'matrix',
          scenario: 's',
          mesh: { name: 'consul' },
          project: own.id,
          startedAt: new Date(Date.now() - 60_000).toISOString(),
        }),
        runAnswer,
      );
    return { own, other, run, admin };
  }

  const tokenOf = (f: Fixture, who: Who) =>
    who === 'none'
      ? undefined
      : who === 'other'
        ? f.other.token
        : who === 'own'
          ? f.own.token
          : TEST_ADMIN_TOKEN;

  async function status(f: Fixture, row: Row, who: Who): Promise<number> {
    const { path, init } = await row.call(f);
    const headers = new Headers(init.headers);
    const token = tokenOf(f, who);
    if (token) headers.set('authorization', `Bearer ${token}`);
    const response = await fetch(`${server.url}${path}`, { ...init, headers });
    await response.arrayBuffer();
    return response.status;
  }

  it('has a row for every write route of the OpenAPI document, and no row without a route', async () => {
    const doc = (await (await fetch(`${server.url}/docs/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const writes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => !['get', 'head', 'options'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.filter((w) => !(w in ROWS))).toEqual([]);
    expect(Object.keys(ROWS).filter((r) => !writes.includes(r))).toEqual([]);
    for (const r of Object.keys(WRITER_READS)) {
      expect(doc.paths[r.split(' ')[1] as string]?.get, r).toBeDefined();
    }
  });

  it.each(Object.entries({ ...ROWS, ...WRITER_READS }))('%s', async (_route, row) => {
    const f = await fixture();
    const got: Record<string, number> = {};
    for (const who of WHO) got[who] = await status(f, row, who);
    expect(got).toEqual(row.expect);
  });

  it('refuses before reading the body: a malformed body gets 401/403, not 400', async () => {
    const f = await fixture();
    const run = await f.run();
    const garbage = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' };
    for (const [path, init] of [
      ['/api/v1/runs', garbage],
      [`/api/v1/runs/${run.id}/events`, garbage],
      [`/api/v1/runs/${run.id}/results`, garbage],
      ['/api/v1/reports', garbage],
      [`/api/v1/projects/${f.own.id}/thresholds`, garbage],
      [`/api/v1/runs/${run.id}`, { ...garbage, method: 'PATCH' }],
    ] as const) {
      const anonymous = await fetch(`${server.url}${path}`, init);
      expect([path, anonymous.status]).toEqual([path, 401]);
      if (path === '/api/v1/runs' || path === '/api/v1/reports') continue; // no project in the URL
      const other = await fetch(`${server.url}${path}`, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${f.other.token}` },
      });
      expect([path, other.status]).toEqual([path, 403]);
    }
  });

  it("lets an OTLP point reach only runs of the token's project", async () => {
    const f = await fixture();
    const run = await f.run();
    const send = async (who: Who) => {
      const response = await fetch(`${server.url}/v1/metrics`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${tokenOf(f, who)}`,
        },
        body: otlp(run.id),
      });
      const body = checkAnswer(
        '/v1/metrics',
        response.status,
        await response.json(),
        otlpExportMetricsResponse,
      );
      return Number(body.partialSuccess?.rejectedDataPoints ?? 0);
    };
    const points = async () => {
      const series = await f.admin(`/api/v1/runs/${run.id}/series`, {}, seriesList);
      return series.reduce((n, s) => n + s.stats.count, 0);
    };
    expect(await send('other')).toBe(1);
    expect(await points()).toBe(0);
    expect(await send('own')).toBe(0);
    expect(await points()).toBe(1);
  });

  it("lets an OTLP log record reach only runs of the token's project", async () => {
    const f = await fixture();
    const run = await f.run();
    const send = async (who: Who) => {
      const response = await fetch(`${server.url}/v1/logs`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${tokenOf(f, who)}`,
        },
        body: otlpLog(run.id),
      });
      const body = checkAnswer(
        '/v1/logs',
        response.status,
        await response.json(),
        otlpExportLogsResponse,
      );
      return Number(body.partialSuccess?.rejectedLogRecords ?? 0);
    };
    const stored = async () => {
      const response = await fetch(`${server.url}/api/v1/runs/${run.id}/events`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      return (await response.text()).trim().split('\n').filter(Boolean).length;
    };
    expect(await send('other')).toBe(1);
    expect(await stored()).toBe(0);
    expect(await send('own')).toBe(0);
    expect(await stored()).toBe(1);
  });
});
