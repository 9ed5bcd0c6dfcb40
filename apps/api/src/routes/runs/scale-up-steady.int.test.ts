// A Kubernetes-shaped scale-up: the nodes join in 10 s but pods keep arriving until 60 s. The
// control plane's steady CPU and memory are read after the whole ramp, and a counter of CPU
// seconds (OTLP process_cpu_seconds_total, as Istio and Linkerd export it) gets a figure in
// cores, on the timeline and in History. Worked by hand in the comments.
import { finishedRun, history, timeline } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = Date.parse('2026-03-02T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);

/** Two nodes joined at 5 and 10 s; three pods (instances) running at 20, 40 and 60 s. */
const lifecycle = [
  ...[5, 10].map((s, i) => ({
    type: 'lifecycle',
    phase: 'joined',
    entity: `node-${i}`,
    at: iso(T0 + s * 1000),
  })),
  ...[20, 40, 60].map((s, i) => ({
    type: 'lifecycle',
    phase: 'running',
    entity: `pod-${i}`,
    at: iso(T0 + s * 1000),
  })),
];

const otlp = (runId: string, metric: Record<string, unknown>) =>
  JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeMetrics: [{ metrics: [metric] }],
      },
    ],
  });

describe.each(backends)('scale-up steady levels on $name', (backend) => {
  const server = useServer(backend);
  const post = (body: string) =>
    fetch(`${server.url}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
      body,
    });
  const newRun = async (benchmark: string) => {
    const run = await createRun(server, {
      benchmark,
      topology: { nodes: 2, instances: 3 },
      startedAt: iso(T0),
      finishedAt: iso(T0 + 120_000),
    });
    expect((await postEvents(server, run.id, ndjson(lifecycle))).status).toBe(200);
    return run;
  };
  const finish = (id: string) =>
    server.json(
      `/runs/${id}`,
      { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' },
      finishedRun,
    );
  const read = async (benchmark: string, metric: string) =>
    (await server.json(`/history?benchmark=${benchmark}&metric=${metric}`, {}, history)).body
      .points[0]?.value;

  it('reads steady CPU after the last phase reached 100 %, not after the last join', async () => {
    const benchmark = `steady-gauge-${Date.now()}`;
    const run = await newRun(benchmark);
    // A CPU gauge every 10 s: 40 % for 0..50 s (six samples), 10 % for 60..120 s (seven).
    // From the last join (10 s): (5 x 40 + 7 x 10) / 12 = 22.5. From 60 s, when the third
    // pod ran: 10.
    const points = Array.from({ length: 13 }, (_, k) => ({
      timeUnixNano: nanos(T0 + k * 10_000),
      asDouble: k < 6 ? 40 : 10,
    }));
    const posted = await post(
      otlp(run.id, { name: 'pilot.cpu_pct', unit: '%', gauge: { dataPoints: points } }),
    );
    expect(posted.status).toBe(200);
    const t = await server.json(`/runs/${run.id}/timeline?points=60`, {}, timeline);
    expect(t.body.steadyFrom).toEqual({ phase: 'running', offsetMs: 60_000, reached: true });
    const cpu = t.body.series.find((s) => s.name === 'pilot.cpu_pct');
    expect(cpu?.levels).toEqual({ peak: 40, steady: 10, unit: '%' });
    expect((await finish(run.id)).status).toBe(200);
    // History takes the samples after the ramp's end (60 s excluded, as after the last join).
    expect(await read(benchmark, 'cpuSteady')).toBe(10);
    expect(await read(benchmark, 'cpuPeak')).toBe(40);
  });

  it('gives a counter of CPU seconds a peak and steady figure in cores', async () => {
    const benchmark = `steady-cores-${Date.now()}`;
    const run = await newRun(benchmark);
    // Cumulative since the run's start, every 10 s: 2 cores until 60 s (+20 CPU s a scrape),
    // then half a core (+5). Rates: 2 over each interval up to 60 s, 0.5 after; peak 2 cores,
    // steady (intervals from 60 s on) 0.5 cores.
    const points = Array.from({ length: 12 }, (_, k) => {
      const s = (k + 1) * 10;
      return {
        startTimeUnixNano: nanos(T0),
        timeUnixNano: nanos(T0 + s * 1000),
        asDouble: s <= 60 ? 2 * s : 120 + 0.5 * (s - 60),
      };
    });
    const posted = await post(
      otlp(run.id, {
        name: 'process_cpu_seconds_total',
        unit: 's',
        sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: points },
      }),
    );
    expect(posted.status).toBe(200);
    const t = await server.json(`/runs/${run.id}/timeline?points=60`, {}, timeline);
    const cpu = t.body.series.find((s) => s.name === 'process_cpu_seconds_total');
    expect(cpu?.levels).toEqual({ peak: 2, steady: 0.5, unit: 'cores' });
    expect((await finish(run.id)).status).toBe(200);
    expect(await read(benchmark, 'cpuPeak')).toBe(2);
    expect(await read(benchmark, 'cpuSteady')).toBe(0.5);
  });
});
