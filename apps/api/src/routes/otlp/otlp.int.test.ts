import { gzipSync } from 'node:zlib';
import { otlpExportMetricsResponse, otlpStatus, seriesList } from '@meshbench/schema';
import {
  AggregationTemporalityPreference,
  OTLPMetricExporter as JsonExporter,
} from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import root from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../../test/answer.ts';
import { backends, createRun, type TestServer, useServer } from '../../test/harness.ts';

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
              ExportMetricsServiceResponse: {
                decode(b: Uint8Array): {
                  partialSuccess?: { rejectedDataPoints?: unknown; errorMessage?: string };
                };
              };
            };
          };
        };
      };
    };
  }
).opentelemetry.proto.collector.metrics.v1;

type Exporter = 'json' | 'protobuf';
type Temporality = 'delta' | 'cumulative';

function provider(
  server: TestServer,
  runRef: string,
  exporter: Exporter,
  temporality: Temporality,
) {
  const options = {
    url: `${server.url}/v1/metrics`,
    headers: { authorization: `Bearer ${server.token}` },
    temporalityPreference:
      temporality === 'delta'
        ? AggregationTemporalityPreference.DELTA
        : AggregationTemporalityPreference.CUMULATIVE,
  };
  const reader = new PeriodicExportingMetricReader({
    exporter: exporter === 'json' ? new JsonExporter(options) : new ProtoExporter(options),
    exportIntervalMillis: 3_600_000,
  });
  return new MeterProvider({
    resource: resourceFromAttributes({
      'service.name': 'consul-server',
      'meshbench.run': runRef,
    }),
    readers: [reader],
    views: [
      {
        instrumentName: 'xds.push.exp',
        aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM },
      },
    ],
  });
}

async function seriesOf(server: TestServer, runId: string) {
  const { status, body } = await server.json(`/runs/${runId}/series`, {}, seriesList);
  expect(status).toBe(200);
  return (name: string) => {
    const found = body.find((s) => s.name === name);
    if (!found) throw new Error(`no series ${name} in ${body.map((s) => s.name).join(', ')}`);
    return found;
  };
}

describe.each(backends)('OTLP/HTTP receiver on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_OTLP_MAX_BYTES: String(1024 * 1024) });

  describe.each([
    ['json', 'delta'],
    ['json', 'cumulative'],
    ['protobuf', 'delta'],
    ['protobuf', 'cumulative'],
  ] as [Exporter, Temporality][])('the SDK exporting %s, %s', (exporter, temporality) => {
    it('stores counters, up-down counters, gauges and histograms as recorded', async () => {
      const run = await createRun(server);
      const meterProvider = provider(server, run.id, exporter, temporality);
      const meter = meterProvider.getMeter('meshbench-int', '1.0.0');
      const pushes = meter.createCounter('xds.pushes');
      const inflight = meter.createUpDownCounter('xds.inflight');
      const cpu = meter.createGauge('cp.cpu', { unit: '%' });
      const latency = meter.createHistogram('xds.push.latency', { unit: 'ms' });
      const exp = meter.createHistogram('xds.push.exp', { unit: 'ms' });
      const memory = meter.createObservableGauge('cp.memory', { unit: 'By' });
      let mem = 100;
      memory.addCallback((r) => r.observe(mem, { server: 's1' }));

      pushes.add(5, { node: 'n1' });
      inflight.add(10);
      cpu.record(43);
      for (let v = 1; v <= 100; v++) latency.record(v);
      for (let v = 1; v <= 100; v++) exp.record(v);
      await meterProvider.forceFlush();
      pushes.add(7, { node: 'n1' });
      inflight.add(-3);
      cpu.record(7.5);
      mem = 250;
      latency.record(1000);
      await meterProvider.forceFlush();
      await meterProvider.shutdown();

      const get = await seriesOf(server, run.id);
      expect(get('xds.pushes')).toMatchObject({
        kind: 'counter',
        source: 'otlp',
        tags: { node: 'n1', 'service.name': 'consul-server', 'otel.scope.name': 'meshbench-int' },
        stats: { sum: 12 },
      });
      expect(get('xds.pushes').tags['meshbench.run']).toBeUndefined();
      expect(get('xds.inflight')).toMatchObject({ kind: 'updowncounter', stats: { last: 7 } });
      expect(get('cp.cpu')).toMatchObject({
        kind: 'gauge',
        stats: { last: 7.5, min: 7.5, max: 43 },
      });
      expect(get('cp.memory')).toMatchObject({ kind: 'gauge', stats: { last: 250 } });
      const hist = get('xds.push.latency');
      expect(hist).toMatchObject({ kind: 'histogram', stats: { count: 101, sum: 6050 } });
      expect(hist.stats.max).toBe(1000);
      const median = hist.stats.percentiles?.find((p) => p.p === 50)?.value as number;
      // Explicit buckets: an estimate within the bucket that holds the median (50, 75].
      expect(median).toBeGreaterThan(50);
      expect(median).toBeLessThanOrEqual(75);
      const e = get('xds.push.exp');
      expect(e).toMatchObject({
        kind: 'exponential_histogram',
        stats: { count: 100, sum: 5050 },
      });
      const p90 = e.stats.percentiles?.find((p) => p.p === 90)?.value as number;
      expect(Math.abs(p90 - 90) / 90).toBeLessThan(0.1);
    });
  });

  const otlp = (body: Uint8Array | string, headers: Record<string, string>) =>
    fetch(`${server.url}/v1/metrics`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, ...headers },
      body,
    });
  const request = (runRef: string | undefined, value: number, timeMs = Date.now()) => ({
    resourceMetrics: [
      {
        resource: {
          attributes: runRef ? [{ key: 'meshbench.run', value: { stringValue: runRef } }] : [],
        },
        scopeMetrics: [
          {
            scope: { name: 'hand' },
            metrics: [
              {
                name: 'hand.gauge',
                gauge: {
                  dataPoints: [{ timeUnixNano: String(timeMs * 1e6), asDouble: value }],
                },
              },
            ],
          },
        ],
      },
    ],
  });

  it('takes gzip protobuf and answers in protobuf', async () => {
    const run = await createRun(server);
    const { ExportMetricsServiceRequest: Req } = v1;
    const bytes = Req.encode(Req.fromObject(request(run.id, 3.25))).finish();
    const response = await otlp(gzipSync(bytes), {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/x-protobuf');
    const decoded = v1.ExportMetricsServiceResponse.decode(
      new Uint8Array(await response.arrayBuffer()),
    );
    expect(decoded.partialSuccess ?? null).toBeNull();
    const get = await seriesOf(server, run.id);
    expect(get('hand.gauge').stats.last).toBe(3.25);
  });

  it('reports points it refuses in partial_success, and points it holds as a warning', async () => {
    const scrape = async (name: string) => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    };
    const rejectedBefore = await scrape('meshbench_otlp_rejected_data_points_total');
    const requestsBefore = await scrape('meshbench_otlp_requests_total');
    const json = await otlp(JSON.stringify(request(undefined, 1, Date.UTC(2001, 0, 1))), {
      'content-type': 'application/json',
    });
    expect(json.status).toBe(200);
    const body = checkAnswer('/v1/metrics', 200, await json.json(), otlpExportMetricsResponse);
    // No run yet: accepted and held for a run of its environment to claim, not rejected.
    expect(body.partialSuccess?.rejectedDataPoints).toBe(0);
    expect(body.partialSuccess?.errorMessage).toContain('1 data point(s) matched no run yet');

    const { ExportMetricsServiceRequest: Req } = v1;
    const proto = await otlp(Req.encode(Req.fromObject(request('no-such-run', 1))).finish(), {
      'content-type': 'application/x-protobuf',
    });
    expect(proto.status).toBe(200);
    const decoded = v1.ExportMetricsServiceResponse.decode(
      new Uint8Array(await proto.arrayBuffer()),
    );
    expect(Number(decoded.partialSuccess?.rejectedDataPoints)).toBe(1);
    expect(decoded.partialSuccess?.errorMessage).toContain('does not exist or that this token');
    // The API's own metrics count them too.
    expect((await scrape('meshbench_otlp_rejected_data_points_total')) - rejectedBefore).toBe(1);
    expect((await scrape('meshbench_otlp_requests_total')) - requestsBefore).toBe(2);
  });

  it('rejects what it cannot read with the status codes exporters expect', async () => {
    const run = await createRun(server);
    const { ExportMetricsServiceRequest: Req } = v1;
    const bytes = Req.encode(Req.fromObject(request(run.id, 1))).finish();
    const truncated = await otlp(bytes.subarray(0, bytes.length - 5), {
      'content-type': 'application/x-protobuf',
    });
    expect(truncated.status).toBe(400);
    expect(truncated.headers.get('content-type')).toContain('application/x-protobuf');

    const badJson = await otlp('{"resourceMetrics": [', { 'content-type': 'application/json' });
    expect(badJson.status).toBe(400);
    expect(checkAnswer('/v1/metrics', 400, await badJson.json(), otlpStatus).message).toContain(
      'JSON',
    );

    const wrongType = await otlp('x', { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);

    const badGzip = await otlp(Buffer.from('not gzip'), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(badGzip.status).toBe(400);

    const tooLarge = await otlp(gzipSync(Buffer.alloc(2 * 1024 * 1024, 32)), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(tooLarge.status).toBe(413);

    const nonNumeric = await otlp(
      JSON.stringify({
        resourceMetrics: [
          {
            resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: run.id } }] },
            scopeMetrics: [
              {
                metrics: [
                  { name: 'nan', gauge: { dataPoints: [{ asDouble: 'abc' }] } },
                  { name: 'typeless', unknownKind: { dataPoints: [{ asDouble: 1 }] } },
                ],
              },
            ],
          },
        ],
      }),
      { 'content-type': 'application/json' },
    );
    expect(nonNumeric.status).toBe(200);
    const partial = checkAnswer(
      '/v1/metrics',
      200,
      await nonNumeric.json(),
      otlpExportMetricsResponse,
    );
    expect(partial.partialSuccess?.rejectedDataPoints).toBe(2);

    const health = await server.json('/health');
    expect(health.status).toBe(200);
  });
});
