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
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, jsonBody, ndjson, type TestServer, useServer } from '../../test/harness.ts';

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
    expect(p99.loadPoint).toEqual({ mode: 'both', connections: 64, targetRps: 1000 });
    expect(p99.points.map((p) => p.value)).toEqual([9, 12]);
    expect(p99.points[0]?.accuracy).toMatchObject({ exact: false, method: 'reported' });
    expect(p99.metrics).toEqual(['loadP50', 'loadP99', 'achievedRps', 'errorRate']);
    expect((await read('loadP50')).points.map((p) => p.value)).toEqual([2, 2.5]);
    expect((await read('achievedRps')).points.map((p) => p.value)).toEqual([970, 960]);
    // 20 of 1,000 and 4 of 1,600 requests failed.
    expect((await read('errorRate')).points.map((p) => p.value)).toEqual([2, 0.25]);
    const at16 = await read('errorRate', '&connections=16');
    expect(at16.loadPoint).toEqual({ mode: 'both', connections: 16, targetRps: 1000 });
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
});
