// The OpenTelemetry metrics data model as the SDK exports it, against the running app: a
// child process records with the OpenTelemetry JS SDK and exports over OTLP/HTTP, driven
// step by step, so that runs can be made between its exports.

import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createdToken,
  otlpExportMetricsResponse,
  project as projectAnswer,
  type Series,
  seriesList,
  seriesPoints,
  timeline as timelineAnswer,
} from '@meshbench/schema';
import root from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '../../test/answer.ts';
import { backends, createRun, jsonBody, type TestServer, useServer } from '../../test/harness.ts';
import { otelSender } from '../../test/otel-sender.ts';

const v1 = (
  root as unknown as {
    opentelemetry: {
      proto: {
        collector: {
          metrics: {
            v1: {
              ExportMetricsServiceRequest: {
                fromObject(o: object): unknown;
                encode(m: unknown): { finish(): Uint8Array };
              };
            };
          };
        };
      };
    };
  }
).opentelemetry.proto.collector.metrics.v1;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const unique = (what: string) => `${what}-${process.pid}-${Date.now()}-${n++}`;

async function series(server: TestServer, runId: string, token?: string) {
  const { status, body } = await server.json(
    `/runs/${runId}/series`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
    seriesList,
  );
  expect(status).toBe(200);
  return body;
}
const named = (list: Series[], name: string) => {
  const found = list.find((s) => s.name === name);
  if (!found) throw new Error(`no series ${name} in ${list.map((s) => s.name).join(', ')}`);
  return found;
};

/** An OTLP/HTTP protobuf request, for what the JS SDK cannot send (int64, summaries). */
function protobuf(metrics: object[], resource: Record<string, string>): Uint8Array {
  const { ExportMetricsServiceRequest: Req } = v1;
  return Req.encode(
    Req.fromObject({
      resourceMetrics: [
        {
          resource: {
            attributes: Object.entries(resource).map(([key, value]) => ({
              key,
              value: { stringValue: value },
            })),
          },
          scopeMetrics: [{ metrics }],
        },
      ],
    }),
  ).finish();
}
const ns = (ms: number) => String(BigInt(Math.round(ms)) * 1_000_000n);

describe.each(backends)('OTLP metric semantics on $name', (backend) => {
  const server = useServer(backend);
  const url = () => `${server.url}/v1/metrics`;
  const post = (body: Uint8Array, token = server.token) =>
    fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` },
      body,
    });
  const project = async (visibility: 'public' | 'private' = 'private') => {
    const name = unique('otlp-project');
    const p = await server.json('/projects', jsonBody({ name, visibility }), projectAnswer);
    const t = await server.json(
      `/projects/${p.body.id}/tokens`,
      jsonBody({ name: 'sdk' }),
      createdToken,
    );
    return { id: p.body.id, name, token: t.body.token };
  };

  it('counts, for a cumulative stream begun before its run, what was recorded within the run', async () => {
    const environment = unique('env');
    const sdk = otelSender({
      url: url(),
      token: server.token,
      resource: { 'service.name': 'istiod', 'deployment.environment': environment },
    });
    // Exported before the run exists: held, then claimed by the run as its reference.
    await sdk.send({ op: 'add', name: 'pilot_xds_pushes', value: 100 });
    for (let v = 1; v <= 10; v++) await sdk.send({ op: 'record', name: 'push.ms', value: v });
    await sdk.send({ op: 'flush' });
    await pause(20);
    const run = await createRun(server, { environment });
    await pause(20);
    await sdk.send({ op: 'add', name: 'pilot_xds_pushes', value: 7 });
    await sdk.send({ op: 'add', name: 'pilot_xds_pushes', value: 5 });
    for (const v of [40, 50, 60]) await sdk.send({ op: 'record', name: 'push.ms', value: v });
    await sdk.send({ op: 'flush' });
    await sdk.send({ op: 'add', name: 'pilot_xds_pushes', value: 1 });
    await sdk.close();

    const list = await series(server, run.id);
    expect(named(list, 'pilot_xds_pushes').stats.sum).toBe(13);
    // The stream's max moved in the run (10 -> 60): 60 is the run's. Its min did not (1 since
    // before the run): the run's (40) is lost, and the stream's is only a bound.
    expect(named(list, 'push.ms').stats).toMatchObject({
      count: 3,
      sum: 150,
      min: null,
      streamMin: 1,
      max: 60,
    });
    expect(named(list, 'push.ms').stats.streamMax).toBeUndefined();
  });

  it("states no min or max of a run that a cumulative histogram begun before it cannot know, and no tail stretched toward the stream's", async () => {
    const environment = unique('env');
    const sdk = otelSender({
      url: url(),
      token: server.token,
      resource: { 'service.name': 'istiod', 'deployment.environment': environment },
      boundaries: { 'proxy.latency': [1, 10, 100, 1000] },
    });
    // Before the run: the stream's lifetime extremes, 0.01 and 5000.
    for (const v of [0.01, 5000]) await sdk.send({ op: 'record', name: 'proxy.latency', value: v });
    await sdk.send({ op: 'flush' });
    await pause(20);
    const run = await createRun(server, { environment });
    await pause(20);
    // In the run, 100 values: 0.597, 97 x 50, 1134.8 and 1178.9.
    const inRun = [0.597, ...Array.from({ length: 97 }, () => 50), 1134.8, 1178.9];
    for (const v of inRun) await sdk.send({ op: 'record', name: 'proxy.latency', value: v });
    await sdk.send({ op: 'flush' });
    await sdk.close();

    const { body } = await server.json(`/runs/${run.id}/series?percentiles=50,99`, {}, seriesList);
    const stats = named(body, 'proxy.latency').stats;
    // The run's own min (0.597) and max (1178.9) are not in any point: each point carries
    // the stream's 0.01 and 5000, unchanged by the run. Not stated as the run's.
    expect(stats).toMatchObject({
      count: 100,
      min: null,
      max: null,
      streamMin: 0.01,
      streamMax: 5000,
    });
    expect(stats.sum).toBeCloseTo(0.597 + 97 * 50 + 1134.8 + 1178.9, 9);
    const [p50, p99] = stats.percentiles ?? [];
    // P50 is rank 50: the 49th of the 97 in (10, 100], interpolated 10 + 90 x 49/97.
    expect(p50).toMatchObject({ p: 50, method: 'explicit-histogram', lower: 10, upper: 100 });
    expect(p50?.value).toBeCloseTo(10 + (90 * 49) / 97, 9);
    // P99 is rank 99 (exactly 1134.8), in the open bucket (1000, inf): its closed side, with
    // the stream's max as the only upper bound, not 1000 + 4000 x 1/2 = 3000 stretched toward it.
    expect(p99).toMatchObject({ p: 99, value: 1000, lower: 1000, upper: 5000, exact: false });
  });

  it('flags what a cumulative stream with no point before its run counts from its start_time', async () => {
    const environment = unique('env');
    const spawned = Date.now();
    const sdk = otelSender({
      url: url(),
      token: server.token,
      resource: { 'service.name': 'istiod', 'deployment.environment': environment },
    });
    // Recorded before the run, exported only after it began: the stream's first point counts
    // whole, from its start_time, which lies between the spawn and this acknowledgement.
    await sdk.send({ op: 'add', name: 'pilot_xds_pushes', value: 4 });
    await sdk.send({ op: 'record', name: 'push.ms', value: 7 });
    const recorded = Date.now();
    await pause(300);
    const run = await createRun(server, { environment });
    const runStart = Date.parse(run.startedAt);
    await pause(600);
    await sdk.send({ op: 'add', name: 'pilot_xds_pushes', value: 3 });
    await sdk.send({ op: 'flush' });
    await sdk.close();

    const list = await series(server, run.id);
    for (const name of ['pilot_xds_pushes', 'push.ms']) {
      const stats = named(list, name).stats;
      expect(stats.beforeRunMs, name).toBeGreaterThanOrEqual(runStart - recorded);
      expect(stats.beforeRunMs, name).toBeLessThanOrEqual(runStart - spawned);
    }
    expect(named(list, 'pilot_xds_pushes').stats.sum).toBe(7);
    expect(named(list, 'push.ms').stats).toMatchObject({ count: 1, min: 7, max: 7 });
  });

  it('gives a run created after its metrics arrived what lies in its window', async () => {
    const environment = unique('env');
    const sdk = otelSender({
      url: url(),
      token: server.token,
      resource: { 'service.name': 'consul', 'deployment.environment': environment },
    });
    await sdk.send({ op: 'add', name: 'consul.raft.apply', value: 40 });
    await sdk.send({ op: 'flush' });
    await pause(30);
    const startedAt = new Date().toISOString();
    await pause(30);
    await sdk.send({ op: 'add', name: 'consul.raft.apply', value: 2 });
    await sdk.send({ op: 'add', name: 'consul.raft.apply', value: 3 });
    await sdk.send({ op: 'gauge', name: 'consul.cpu', value: 42 });
    await sdk.close();
    // The run is made afterwards, as a CI job that records its start and posts at the end.
    const run = await createRun(server, {
      environment,
      startedAt,
      finishedAt: new Date().toISOString(),
    });
    const list = await series(server, run.id);
    expect(named(list, 'consul.raft.apply').stats.sum).toBe(5);
    expect(named(list, 'consul.cpu').stats.last).toBe(42);
  });

  describe('a delta export retried after its answer was lost', () => {
    let proxy: Server;
    let lost = 0;
    afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

    it('is stored once', async () => {
      // In front of the app: the first export reaches it, but its answer is lost and the
      // exporter gets a 503, so the SDK sends the same export again.
      proxy = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const upstream = httpRequest(
            `${server.url}${req.url}`,
            { method: req.method, headers: req.headers },
            (answer) => {
              const body: Buffer[] = [];
              answer.on('data', (c: Buffer) => body.push(c));
              answer.on('end', () => {
                if (lost === 0) {
                  lost++;
                  res.writeHead(503, { 'retry-after': '1' }).end();
                  return;
                }
                res.writeHead(answer.statusCode ?? 500, answer.headers).end(Buffer.concat(body));
              });
            },
          );
          upstream.end(Buffer.concat(chunks));
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const { port } = proxy.address() as AddressInfo;
      const run = await createRun(server);
      const sdk = otelSender({
        url: `http://127.0.0.1:${port}/v1/metrics`,
        token: server.token,
        temporality: 'delta',
        resource: { 'service.name': 'envoy', 'meshbench.run': run.id },
      });
      const duplicatesBefore = server.app.services.otlp.counters.duplicates;
      await sdk.send({ op: 'add', name: 'envoy.cx', value: 5 });
      await sdk.send({ op: 'flush' });
      expect(lost).toBe(1);
      await sdk.send({ op: 'add', name: 'envoy.cx', value: 2 });
      await sdk.close();
      expect(named(await series(server, run.id), 'envoy.cx').stats).toMatchObject({
        sum: 7,
        count: 2,
      });
      expect(server.app.services.otlp.counters.duplicates - duplicatesBefore).toBe(1);
    });
  });

  it("writes only to the token's project: a point naming another project's run is refused", async () => {
    const a = await project();
    const b = await project();
    const environment = unique('env');
    const theirs = await createRun(server, { project: b.id, environment });
    const rejectedBefore = server.app.services.otlp.counters.rejected;
    const tagged = otelSender({
      url: url(),
      token: a.token,
      resource: { 'service.name': 'x', 'meshbench.run': theirs.id },
    });
    await tagged.send({ op: 'add', name: 'intruder.tagged', value: 1 });
    await tagged.close();
    // The same environment as B's run, untagged: held for project A, not given to B.
    const untagged = otelSender({
      url: url(),
      token: a.token,
      resource: { 'service.name': 'x', 'deployment.environment': environment },
    });
    await untagged.send({ op: 'add', name: 'intruder.untagged', value: 1 });
    await untagged.close();
    expect(server.app.services.otlp.counters.rejected - rejectedBefore).toBe(1);
    expect(await series(server, theirs.id)).toEqual([]);
    // A run of A's own in that environment, made now with a start before the export,
    // claims A's held point.
    const mine = await createRun(server, {
      project: a.id,
      environment,
      startedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(named(await series(server, mine.id), 'intruder.untagged').stats.sum).toBe(1);
  });

  it("refuses points tagged with a run that lie outside the run's window, saying why", async () => {
    const run = await createRun(server, {
      startedAt: new Date(Date.now() - 3_600_000).toISOString(),
      finishedAt: new Date(Date.now() - 1_800_000).toISOString(),
    });
    const response = await post(
      protobuf(
        [
          {
            name: 'late.gauge',
            gauge: { dataPoints: [{ timeUnixNano: ns(Date.now()), asDouble: 1 }] },
          },
        ],
        { 'meshbench.run': run.id },
      ),
    );
    expect(response.status).toBe(200);
    const text = Buffer.from(await response.arrayBuffer()).toString('latin1');
    expect(text).toContain('lies after its run finished');
    expect(await series(server, run.id)).toEqual([]);
  });

  it('keeps an int64 gauge beyond 2^53 exactly', async () => {
    const run = await createRun(server, {
      startedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const at = Date.now() - 1000;
    expect(
      (
        await post(
          protobuf(
            [
              {
                name: 'envoy.version',
                gauge: {
                  dataPoints: [
                    { timeUnixNano: ns(at - 10), asInt: '9007199254741234567' },
                    { timeUnixNano: ns(at), asInt: '-6916846345432189234' },
                  ],
                },
              },
            ],
            { 'meshbench.run': run.id },
          ),
        )
      ).status,
    ).toBe(200);
    const version = named(await series(server, run.id), 'envoy.version');
    expect(version.stats.lastExact).toBe('-6916846345432189234');
    expect(version.stats.last).toBe(Number('-6916846345432189234')); // the float, rounded
  });

  it('gives a Summary its quantiles as sent, in stats, points and the timeline', async () => {
    const start = Date.now() - 60_000;
    const run = await createRun(server, { startedAt: new Date(start).toISOString() });
    const point = (t: number, count: number, p50: number, p99: number) => ({
      startTimeUnixNano: ns(start + 1000),
      timeUnixNano: ns(t),
      count: String(count),
      sum: count * 10,
      quantileValues: [
        { quantile: 0.5, value: p50 },
        { quantile: 0.99, value: p99 },
      ],
    });
    const body = protobuf(
      [
        {
          name: 'consul.rpc.ms',
          summary: {
            dataPoints: [point(start + 10_000, 100, 8, 30), point(start + 20_000, 250, 9, 45)],
          },
        },
      ],
      { 'meshbench.run': run.id },
    );
    expect((await post(body)).status).toBe(200);
    const rpc = named(await series(server, run.id), 'consul.rpc.ms');
    expect(rpc.stats.percentiles).toEqual([
      { p: 50, value: 9, exact: false, method: 'summary' },
      { p: 99, value: 45, exact: false, method: 'summary' },
    ]);
    const points = await server.json(
      `/runs/${run.id}/series/${rpc.id}/points?points=100`,
      {},
      seriesPoints,
    );
    expect(points.body.points.flatMap((p) => p.quantiles ?? []).map((q) => q.value)).toEqual([
      8, 30, 9, 45,
    ]);
    const timeline = await server.json(`/runs/${run.id}/timeline?points=100`, {}, timelineAnswer);
    const line = timeline.body.series.find((s) => s.name === 'consul.rpc.ms');
    expect(line?.points.flatMap((p) => p.quantiles ?? []).map((q) => q.value)).toEqual([
      8, 30, 9, 45,
    ]);
  });

  it('refuses names, attribute values and times over their limits, and says so', async () => {
    const run = await createRun(server, {
      startedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const t = ns(Date.now() - 1000);
    const response = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
      body: JSON.stringify({
        resourceMetrics: [
          {
            resource: {
              attributes: [{ key: 'meshbench.run', value: { stringValue: run.id } }],
            },
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: 'x'.repeat(2000),
                    gauge: { dataPoints: [{ timeUnixNano: t, asDouble: 1 }] },
                  },
                  {
                    name: 'ok.gauge',
                    gauge: {
                      dataPoints: [
                        { timeUnixNano: t, asDouble: 1 },
                        {
                          timeUnixNano: t,
                          asDouble: 2,
                          attributes: [{ key: 'big', value: { stringValue: 'v'.repeat(5000) } }],
                        },
                        { timeUnixNano: '-5', asDouble: 3 },
                      ],
                    },
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
    // This export is a partial success: the answer must say so.
    const body = checkAnswer(
      '/v1/metrics',
      response.status,
      await response.json(),
      otlpExportMetricsResponse.required(),
    );
    expect(body.partialSuccess.rejectedDataPoints).toBe(3);
    expect(body.partialSuccess.errorMessage).toContain('longer than 1024 bytes');
    expect(body.partialSuccess.errorMessage).toContain('longer than 4096 bytes');
    expect(body.partialSuccess.errorMessage).toContain('outside 1970-9999');
    const list = await series(server, run.id);
    expect(list.map((s) => s.name)).toEqual(['ok.gauge']);
    expect(named(list, 'ok.gauge').stats.count).toBe(1);
  });
});
