// History beyond propagation: scale-up and data-plane runs posted through the public API,
// read back as history metrics with their exactness; and a project's detection settings.
import {
  alert,
  createdToken,
  finishedRun,
  history,
  project,
  projectDetection,
  run,
} from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config/env.ts';
import { rowsOf } from '../../repositories/result-rows.ts';
import {
  backends,
  jsonBody,
  ndjson,
  TEST_ADMIN_TOKEN,
  type TestServer,
  useServer,
} from '../../test/harness.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

async function newProject(server: TestServer, name: string) {
  const p = await server.json('/projects', jsonBody({ name, visibility: 'public' }), project);
  expect(p.status).toBe(201);
  return p.body.id;
}

async function newRun(server: TestServer, body: Record<string, unknown>) {
  const r = await server.json('/runs', jsonBody(body), run);
  expect(r.status).toBe(201);
  return r.body.id;
}

const finish = (server: TestServer, id: string) =>
  server.json(
    `/runs/${id}`,
    { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' },
    finishedRun,
  );

/** A gauge of one point per second from the run's start, in OTLP JSON. */
const cpuGauge = (runId: string, values: number[]) =>
  JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'consul.server.cpu_pct',
                unit: '%',
                gauge: {
                  dataPoints: values.map((v, i) => ({
                    timeUnixNano: String(BigInt(T0 + i * 1000) * 1_000_000n),
                    asDouble: v,
                  })),
                },
              },
            ],
          },
        ],
      },
    ],
  });

/** A Fortio result file (the fields Fortio writes) at one load point. */
const fortio = (p: {
  connections: number;
  qps: number;
  actual: number;
  count: number;
  errors: number;
  p50: number;
  p99: number;
}) =>
  JSON.stringify({
    RunType: 'HTTP',
    Labels: `consul_qps_${p.qps}_c_${p.connections}_1024_both`,
    StartTime: iso(T0),
    RequestedQPS: String(p.qps),
    RequestedDuration: '60s',
    ActualQPS: p.actual,
    ActualDuration: 60e9,
    NumThreads: p.connections,
    DurationHistogram: {
      Count: p.count,
      Min: 0.0001,
      Max: 0.05,
      Sum: p.count * 0.002,
      Avg: 0.002,
      StdDev: 0.001,
      Percentiles: [
        { Percentile: 50, Value: p.p50 / 1000 },
        { Percentile: 99, Value: p.p99 / 1000 },
      ],
    },
    RetCodes: { '200': p.count - p.errors, ...(p.errors ? { '503': p.errors } : {}) },
  });

describe.each(backends)('history metrics and detection settings on $name', (backend) => {
  const server = useServer(backend);

  it('reads scale-up runs: time to N % joined, peak CPU and CPU after the last join', async () => {
    const benchmark = `history-scale-${Date.now()}`;
    const projectId = await newProject(server, benchmark);
    const runId = await newRun(server, {
      project: projectId,
      benchmark,
      scenario: 'scale',
      mesh: { name: 'consul' },
      topology: { nodes: 10 },
      startedAt: iso(T0),
    });
    // Ten nodes join at 2, 4, ... 20 s (their second event of a phase is not a first join).
    const joins = Array.from({ length: 10 }, (_, i) => ({
      type: 'lifecycle',
      phase: 'joined',
      entity: `node-${i}`,
      at: iso(T0 + (i + 1) * 2000),
    }));
    const again = { ...joins[0], at: iso(T0 + 25_000) };
    const posted = await server.api(`/runs/${runId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: ndjson([...joins, again]),
    });
    expect(posted.status).toBe(200);
    // CPU: 5 % idle, 40-60 % while joining, then 10, 12, 14, 8 % after the last join (20 s).
    const cpu = [5, 40, 45, 50, 60, 55, 50, 45, 44, 42, 41, 40, 40, 39, 38, 37, 36, 35, 34, 33, 30];
    const after = [10, 12, 14, 8];
    const otlp = await fetch(`${server.url}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
      body: cpuGauge(runId, [...cpu, ...after]),
    });
    expect(otlp.status).toBe(200);
    expect((await finish(server, runId)).status).toBe(200);

    const read = async (metric: string) => {
      const h = await server.json(`/history?benchmark=${benchmark}&metric=${metric}`, {}, history);
      expect(h.status).toBe(200);
      return h.body;
    };
    // Nearest rank of 10 nodes: 50 % is the 5th join (10 s), 90 % the 9th (18 s), 99 % and
    // 100 % the 10th (20 s).
    const j50 = await read('joined50');
    expect(j50.points.map((p) => p.value)).toEqual([10_000]);
    expect(j50.points[0]?.accuracy).toEqual({ exact: true, method: 'raw' });
    expect((await read('joined90')).points[0]?.value).toBe(18_000);
    expect((await read('joined99')).points[0]?.value).toBe(20_000);
    expect((await read('joined100')).points[0]?.value).toBe(20_000);
    const peak = await read('cpuPeak');
    expect(peak.points[0]?.value).toBe(60);
    expect(peak.points[0]?.accuracy).toBeNull();
    // After the last join (20 s, whose sample is the 30 % one): (10 + 12 + 14 + 8) / 4 = 11.
    expect((await read('cpuSteady')).points[0]?.value).toBeCloseTo(11, 9);
    expect(peak.metrics).toEqual([
      'joined50',
      'joined90',
      'joined99',
      'joined100',
      'cpuPeak',
      'cpuSteady',
    ]);
    expect(peak.loadPoint).toBeNull();
    expect((await read('loadP99')).points[0]?.value).toBeNull();
    // A late CPU point inside the finished run's window (25 s, 99 %): the peak is computed again.
    const late = await fetch(`${server.url}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
      body: cpuGauge(runId, [...cpu, ...after, 99]),
    });
    expect(late.status).toBe(200);
    const latePeak = await server.json(
      `/history?benchmark=${benchmark}&metric=cpuPeak&limit=99`,
      {},
      history,
    );
    expect(latePeak.body.points[0]?.value).toBe(99);
  });

  it('reads data-plane runs at the load point asked for, by default the most connections', async () => {
    const benchmark = `history-load-${Date.now()}`;
    const projectId = await newProject(server, benchmark);
    const points = [
      [
        { connections: 16, qps: 1000, actual: 990, count: 2000, errors: 10, p50: 1.2, p99: 4.5 },
        { connections: 64, qps: 1000, actual: 970, count: 1000, errors: 20, p50: 2, p99: 9 },
      ],
      [
        { connections: 16, qps: 1000, actual: 995, count: 4000, errors: 0, p50: 1.1, p99: 4 },
        { connections: 64, qps: 1000, actual: 960, count: 1600, errors: 4, p50: 2.5, p99: 12 },
      ],
    ];
    for (const [i, files] of points.entries()) {
      const id = await newRun(server, {
        project: projectId,
        benchmark,
        scenario: 'load',
        mesh: { name: 'consul' },
        startedAt: iso(T0 + i * 86_400_000),
      });
      for (const f of files) {
        const r = await server.api(`/runs/${id}/results?format=fortio`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: fortio(f),
        });
        expect(r.status).toBe(201);
      }
      await finish(server, id);
    }
    const read = async (metric: string, extra = '') => {
      const h = await server.json(
        `/history?benchmark=${benchmark}&metric=${metric}${extra}`,
        {},
        history,
      );
      expect(h.status).toBe(200);
      return h.body;
    };
    const p99 = await read('loadP99');
    expect(p99.loadPoint).toEqual({ mode: 'both', connections: 64, targetRps: 1000, config: null });
    expect(p99.points.map((p) => p.value)).toEqual([9, 12]);
    expect(p99.points[0]?.accuracy).toMatchObject({ exact: false, method: 'reported' });
    expect(p99.metrics).toEqual(['loadP50', 'loadP99', 'achievedRps', 'errorRate']);
    expect((await read('loadP50')).points.map((p) => p.value)).toEqual([2, 2.5]);
    expect((await read('achievedRps')).points.map((p) => p.value)).toEqual([970, 960]);
    // 20 of 1,000 and 4 of 1,600 requests failed.
    expect((await read('errorRate')).points.map((p) => p.value)).toEqual([2, 0.25]);
    const at16 = await read('errorRate', '&connections=16');
    expect(at16.loadPoint).toEqual({
      mode: 'both',
      connections: 16,
      targetRps: 1000,
      config: null,
    });
    expect(at16.points.map((p) => p.value)).toEqual([0.5, 0]);
    expect((await read('loadP99', '&connections=16')).points.map((p) => p.value)).toEqual([4.5, 4]);
    // A point no run has: no values.
    expect((await read('loadP99', '&connections=8')).points.map((p) => p.value)).toEqual([
      null,
      null,
    ]);
  });

  it("keeps a project's detection settings, for its token only, and detects with them", async () => {
    const name = `history-detect-${Date.now()}`;
    const projectId = await newProject(server, name);
    const other = await newProject(server, `${name}-other`);
    const tokenOf = async (id: string) =>
      (await server.json(`/projects/${id}/tokens`, jsonBody({ name: 'ci' }), createdToken)).body
        .token;
    const own = await tokenOf(projectId);
    const foreign = await tokenOf(other);
    const put = (body: unknown, token?: string) =>
      server.api(`/projects/${projectId}/detection`, {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const defaults = { maxPValue: 0.001, minMagnitude: 0.05, minSegment: 3 };
    const unset = await server.json(`/projects/${projectId}/detection`, {}, projectDetection);
    expect(unset.body).toEqual({ projectId, detection: defaults, set: {}, defaults });

    // Nobody, and another project's token, may not write them.
    const anonymous = await server.anonJson(`/projects/${projectId}/detection`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ minMagnitude: 0.5 }),
    });
    expect(anonymous.status).toBe(401);
    expect((await put({ minMagnitude: 0.5 }, foreign)).status).toBe(403);
    // A bad field is named.
    const bad = await put({ maxPValue: 2 }, own);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('maxPValue');
    const unknown = await put({ minMagnitud: 0.5 }, own);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('minMagnitud');
    const set = await put({ minMagnitude: 0.5 }, own);
    expect(set.status).toBe(200);
    const kept = await server.json(`/projects/${projectId}/detection`, {}, projectDetection);
    expect(kept.body.detection).toEqual({ ...defaults, minMagnitude: 0.5 });
    expect(kept.body.set).toEqual({ minMagnitude: 0.5 });

    // 16 runs whose P99 steps from ~100 to ~130 ms (+30 %) after the 8th.
    const p99s = [100, 102, 99, 101, 100, 98, 101, 100, 130, 131, 129, 132, 130, 128, 131, 130];
    const ids: string[] = [];
    for (const [i, p99] of p99s.entries()) {
      const id = await newRun(server, {
        project: projectId,
        benchmark: name,
        scenario: 's',
        mesh: { name: 'consul' },
        labels: { branch: 'main' },
        startedAt: iso(T0 + i * 3_600_000),
      });
      const latencies = [...Array.from({ length: 98 }, (_, k) => k + 1), p99, p99 + 1];
      await server.api(`/runs/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: ndjson([
          {
            type: 'change',
            id: 'c1',
            kind: 'endpoint',
            target: 'x',
            action: 'delete',
            at: iso(T0),
          },
          ...latencies.map((ms, k) => ({
            type: 'observation',
            change: 'c1',
            proxy: `p${k}`,
            at: iso(T0 + ms),
          })),
        ]),
      });
      await finish(server, id);
      ids.push(id);
    }
    // +30 % is below the project's 50 %: no change point, and no alert at any finish.
    const quiet = await server.json(`/history?benchmark=${name}&metric=p99`, {}, history);
    expect(quiet.body.detection).toMatchObject({ minMagnitude: 0.5, source: 'project' });
    expect(quiet.body.changePoints).toEqual([]);
    const alerts = await server.json(`/projects/${projectId}/alerts`, {}, z.array(alert));
    expect(alerts.body.filter((a) => a.kind === 'change-point')).toEqual([]);
    // A request may override it.
    const loud = await server.json(
      `/history?benchmark=${name}&metric=p99&minMagnitude=0.05`,
      {},
      history,
    );
    expect(loud.body.detection).toMatchObject({ minMagnitude: 0.05, source: 'request' });
    expect(loud.body.changePoints.map((c) => c.runId)).toEqual([ids[8]]);
    // {} puts the defaults back: the change point is found with them.
    expect((await put({}, own)).status).toBe(200);
    const back = await server.json(`/history?benchmark=${name}&metric=p99`, {}, history);
    expect(back.body.detection).toMatchObject({ ...defaults, source: 'default' });
    expect(back.body.changePoints.map((c) => c.runId)).toEqual([ids[8]]);
  });

  /** A propagation run: change c1 at T0 (expecting `expected` proxies), one proxy per latency. */
  const propagationEvents = (latencies: number[], expected?: number, from = 0) =>
    ndjson([
      ...(from === 0
        ? [
            {
              type: 'change',
              id: 'c1',
              kind: 'endpoint',
              target: 'x',
              action: 'delete',
              at: iso(T0),
              ...(expected ? { expected } : {}),
            },
          ]
        : []),
      ...latencies.map((ms, k) => ({
        type: 'observation',
        change: 'c1',
        proxy: `p${from + k}`,
        at: iso(T0 + ms),
      })),
    ]);

  const keptMetrics = async (runId: string) =>
    Object.fromEntries(
      rowsOf<{ metric: string; value: number }>(
        await server.app.database.db.execute(
          sql`select metric, value from run_metrics where run_id = ${runId} order by metric`,
        ),
      ).map((r) => [r.metric, Number(r.value)]),
    );

  it('keeps the history metrics at a finish; a restarted server reads them without the observations', async () => {
    const benchmark = `history-kept-${Date.now()}`;
    const projectId = await newProject(server, benchmark);
    const runId = await newRun(server, {
      project: projectId,
      benchmark,
      scenario: 's',
      mesh: { name: 'consul' },
      startedAt: iso(T0),
    });
    // 10 of 12 expected proxies; 8 of them within 1 s.
    const latencies = [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560];
    const posted = await server.api(`/runs/${runId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: propagationEvents(latencies, 12),
    });
    expect(posted.status).toBe(200);
    expect((await finish(server, runId)).status).toBe(200);
    // Nearest rank of 10: P50 the 5th (80 ms), P90 the 9th (1,280), P99 and max the 10th;
    // mean 5,115 / 10; within 1 s 8 of the 12 expected; 2 missing.
    const expected = {
      p50: 80,
      p90: 1280,
      p95: 2560,
      p96: 2560,
      p99: 2560,
      'p99.9': 2560,
      max: 2560,
      mean: 511.5,
      within1s: (8 / 12) * 100,
      missing: 2,
      // How the facts were computed (FACTS_FORMULA): older ones are computed again.
      factsFormula: 2,
    };
    const kept = await keptMetrics(runId);
    expect(Object.keys(kept).sort()).toEqual(Object.keys(expected).sort());
    for (const [m, v] of Object.entries(expected)) expect(kept[m]).toBeCloseTo(v, 9);

    // A second app on the same database (a restart, or another replica), with the run's
    // observations and summaries gone: its history is what was kept, not a recomputation.
    const db = server.app.database.db;
    for (const table of ['observations', 'latency_blocks', 'change_summaries'])
      await db.execute(sql`delete from ${sql.identifier(table)} where run_id = ${runId}`);
    const restarted: FastifyInstance = await buildApp(
      loadConfig({
        STATSD_PORT: '0',
        MESHBENCH_LOG_LEVEL: 'silent',
        MESHBENCH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      }),
      { database: server.app.database, logger: false, inMemory: true },
    );
    try {
      for (const metric of ['p50', 'p99', 'within1s', 'max', 'missing'] as const) {
        const answer = await restarted.inject({
          url: `/api/v1/history?benchmark=${benchmark}&metric=${metric}`,
        });
        expect(answer.statusCode).toBe(200);
        const h = history.parse(answer.json());
        expect(h.points.map((p) => p.value)).toEqual([expected[metric]]);
        if (metric === 'p99')
          expect(h.points[0]?.accuracy).toMatchObject({ exact: true, method: 'raw' });
      }
    } finally {
      await restarted.close();
    }
  });

  it('reads what a late batch changed on a finished run at once, kept by the worker, as older runs', async () => {
    const benchmark = `history-late-${Date.now()}`;
    const projectId = await newProject(server, benchmark);
    const runId = await newRun(server, {
      project: projectId,
      benchmark,
      scenario: 's',
      mesh: { name: 'consul' },
      startedAt: iso(T0),
    });
    const post = (body: string) =>
      server.api(`/runs/${runId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body,
      });
    expect((await post(propagationEvents([10, 20, 30, 40]))).status).toBe(200);
    expect((await finish(server, runId)).status).toBe(200);
    const p50 = async () =>
      (await server.json(`/history?benchmark=${benchmark}&metric=p50`, {}, history)).body.points[0]
        ?.value;
    // Nearest rank of 4: the 2nd, 20 ms.
    expect(await p50()).toBe(20);
    // Four more proxies after the finish: of 8, the 4th (40 ms).
    expect((await post(propagationEvents([50, 60, 70, 80], undefined, 4))).status).toBe(200);
    expect(await p50()).toBe(40);
    // The read computed it and kept nothing: the background worker keeps it.
    expect((await keptMetrics(runId)).p50).toBe(20);
    await server.app.recheckAlerts({ projectId, settledMs: 0 });
    expect((await keptMetrics(runId)).p50).toBe(40);

    // A run that finished before its facts were kept (none kept): computed on read, kept by
    // the worker.
    await server.app.database.db.execute(sql`delete from run_facts where run_id = ${runId}`);
    await server.app.database.db.execute(sql`delete from run_metrics where run_id = ${runId}`);
    expect(await keptMetrics(runId)).toEqual({});
    // (Another URL than the last read: the read cache does not see SQL run by a test.)
    const again = await server.json(
      `/history?benchmark=${benchmark}&metric=p50&limit=99`,
      {},
      history,
    );
    expect(again.body.points[0]?.value).toBe(40);
    expect(await keptMetrics(runId)).toEqual({});
    await server.app.recheckAlerts({ projectId, settledMs: 0 });
    expect((await keptMetrics(runId)).p50).toBe(40);
  });

  it('marks a finished run stale in the write itself: a write whose mark fails stores nothing', async () => {
    const benchmark = `history-atomic-${Date.now()}`;
    const projectId = await newProject(server, benchmark);
    const runId = await newRun(server, {
      project: projectId,
      benchmark,
      scenario: 's',
      mesh: { name: 'consul' },
      startedAt: iso(T0),
    });
    const events = (body: string) =>
      server.api(`/runs/${runId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body,
      });
    const results = () =>
      server.api(`/runs/${runId}/results?format=fortio`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: fortio({
          connections: 8,
          qps: 100,
          actual: 100,
          count: 600,
          errors: 0,
          p50: 1,
          p99: 3,
        }),
      });
    const points = () =>
      fetch(`${server.url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
        body: cpuGauge(runId, [10, 20, 30]),
      });
    expect((await events(propagationEvents([10, 20, 30, 40]))).status).toBe(200);
    expect((await finish(server, runId)).status).toBe(200);
    const db = server.app.database.db;
    const count = async (table: string) =>
      Number(
        rowsOf<{ n: number }>(
          await db.execute(
            sql.raw(`select count(*)::int as n from ${table} where run_id = '${runId}'`),
          ),
        )[0]?.n,
      );
    const stored = async () => ({
      batches: await count('event_batches'),
      results: await count('load_results'),
      points: await count('metric_points'),
    });
    const before = await stored();
    // The mark made to fail for this run only: a write that commits apart from its mark would
    // keep its rows while the facts computed without them still counted as current.
    await db.execute(
      sql.raw(`create or replace function refuse_stale_mark() returns trigger language plpgsql as $$
        begin
          if new.run_id = '${runId}'::uuid then raise exception 'stale mark refused by the test'; end if;
          return new;
        end $$`),
    );
    await db.execute(
      sql.raw(`create trigger refuse_stale_mark before insert or update on run_facts
        for each row execute function refuse_stale_mark()`),
    );
    try {
      expect((await events(propagationEvents([50, 60], undefined, 4))).status).toBe(500);
      expect((await results()).status).toBe(500);
      expect((await points()).ok).toBe(false);
      expect(await stored()).toEqual(before);
    } finally {
      await db.execute(sql.raw('drop trigger refuse_stale_mark on run_facts'));
      await db.execute(sql.raw('drop function refuse_stale_mark()'));
    }
    // With the mark possible again, each write is stored and counts in the run's history.
    expect((await events(propagationEvents([50, 60, 70, 80], undefined, 4))).status).toBe(200);
    expect((await results()).status).toBe(201);
    expect((await points()).status).toBe(200);
    const after = await stored();
    expect(after.batches).toBe(before.batches + 1);
    expect(after.results).toBe(before.results + 1);
    expect(after.points).toBe(before.points + 3);
    // Of 8 proxies, the 4th (40 ms).
    const p50 = await server.json(`/history?benchmark=${benchmark}&metric=p50`, {}, history);
    expect(p50.body.points[0]?.value).toBe(40);
  });

  it('keeps a +20 % step of data-plane P99 as a loadP99 alert at the load point, dismissed after more runs', async () => {
    const benchmark = `history-load-alert-${Date.now()}`;
    const projectId = await newProject(server, benchmark);
    const ids: string[] = [];
    const loadRun = async (p99: number) => {
      const id = await newRun(server, {
        project: projectId,
        benchmark,
        scenario: 'load',
        mesh: { name: 'istio' },
        labels: { branch: 'main' },
        startedAt: iso(T0 + ids.length * 3_600_000),
      });
      const r = await server.api(`/runs/${id}/results?format=fortio`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: fortio({
          connections: 64,
          qps: 1000,
          actual: 990,
          count: 1000,
          errors: 0,
          p50: 2,
          p99,
        }),
      });
      expect(r.status).toBe(201);
      expect((await finish(server, id)).status).toBe(200);
      ids.push(id);
    };
    const alerts = async () =>
      (await server.json(`/projects/${projectId}/alerts`, {}, z.array(alert))).body.filter(
        (a) => a.kind === 'change-point',
      );
    for (const p99 of [10, 10.1, 9.9, 10, 10.2, 9.8, 10]) await loadRun(p99);
    expect(await alerts()).toEqual([]);
    // +20 %: 10 ms to 12 ms from the 8th run on.
    for (const p99 of [12, 12.1, 11.9]) await loadRun(p99);
    const [found, ...others] = await alerts();
    expect(others).toEqual([]);
    expect(found).toMatchObject({
      state: 'open',
      runId: ids[7],
      previousRunId: ids[6],
      series: { benchmark, scenario: 'load', mesh: 'istio', branch: 'main', metric: 'loadP99' },
      details: { loadPoint: { mode: 'both', connections: 64, targetRps: 1000 } },
    });
    expect(found?.details.change).toBeCloseTo(12 / 10 - 1, 2);
    const hist = await server.json(`/history?benchmark=${benchmark}&metric=loadP99`, {}, history);
    expect(hist.body.changePoints.map((c) => [c.runId, c.alert?.id])).toEqual([
      [ids[7], found?.id],
    ]);
    const dismissed = await server.api(`/alerts/${found?.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'dismissed', reason: 'new proxy image, expected' }),
    });
    expect(dismissed.status).toBe(200);
    for (const p99 of [12, 12.2, 11.8, 12]) await loadRun(p99);
    expect((await alerts()).map((a) => [a.id, a.state, a.runId, a.series.metric])).toEqual([
      [found?.id, 'dismissed', ids[7], 'loadP99'],
    ]);
  });
});
