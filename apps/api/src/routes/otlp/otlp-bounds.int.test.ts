// Exponential histograms at the edges of float64: what the OpenTelemetry SDK sends for the
// largest and smallest doubles is stored and read back (its top bucket's upper boundary is
// past Number.MAX_VALUE), and a bucket index no double maps to is refused at ingest, naming
// the point and field, with nothing of the request stored.
import { otlpStatus, seriesList } from '@meshbench/schema';
import { AggregationTemporalityPreference } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../../test/answer.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';
import { rowsOfRun } from '../../test/rows-of-run.ts';

describe.each(backends)('OTLP exponential histograms at float64 edges on $name', (backend) => {
  const server = useServer(backend);
  const series = (runId: string) => server.json(`/runs/${runId}/series`, {}, seriesList);

  it.each([
    ['the largest double', [Number.MAX_VALUE]],
    ['the largest and smallest doubles', [Number.MAX_VALUE, Number.MIN_VALUE, 1]],
    ['a subnormal', [Number.MIN_VALUE]],
  ])('the SDK recording %s is stored and read back', async (_name, values) => {
    const run = await createRun(server);
    const reader = new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter({
        url: `${server.url}/v1/metrics`,
        headers: { authorization: `Bearer ${server.token}` },
        temporalityPreference: AggregationTemporalityPreference.CUMULATIVE,
      }),
      exportIntervalMillis: 3_600_000,
    });
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'edge', 'meshbench.run': run.id }),
      readers: [reader],
      views: [
        {
          instrumentName: 'edge.exp',
          aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM },
        },
      ],
    });
    const h = provider.getMeter('edge').createHistogram('edge.exp');
    for (const v of values) h.record(v);
    await provider.forceFlush();
    await provider.shutdown();
    const read = await series(run.id);
    expect(read.status).toBe(200);
    const found = read.body.find((s) => s.name === 'edge.exp');
    expect(found?.stats.count).toBe(values.length);
    for (const p of found?.stats.percentiles ?? []) expect(Number.isFinite(p.value)).toBe(true);
  });

  const point = (scale: number, offset: number, side: 'positive' | 'negative' = 'positive') => ({
    timeUnixNano: String(Date.now() * 1e6),
    startTimeUnixNano: String((Date.now() - 1000) * 1e6),
    count: '2',
    scale,
    zeroCount: '0',
    [side]: { offset, bucketCounts: ['1', '1'] },
  });
  const send = (runId: string, dataPoint: object) =>
    fetch(`${server.url}/v1/metrics`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceMetrics: [
          {
            resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: 'hand.exp',
                    exponentialHistogram: { aggregationTemporality: 1, dataPoints: [dataPoint] },
                  },
                ],
              },
            ],
          },
        ],
      }),
    });

  // The top and bottom buckets a double maps to (opentelemetry-js sdk-metrics ExponentMapping
  // and LogarithmMapping, _maxNormalLowerBoundaryIndex and _minNormalLowerBoundaryIndex - 1):
  // scale 0: -1023..1023; scale 3: -8177..8191; scale -2: -256..255.
  it.each([
    [0, 1022],
    [0, -1023],
    [3, 8190],
    [-2, 254],
    [20, (1024 << 20) - 2],
  ])(
    'stores buckets up to the top one a double maps to (scale %i, offset %i)',
    async (scale, offset) => {
      const run = await createRun(server);
      const posted = await send(run.id, point(scale, offset));
      expect(posted.status).toBe(200);
      const read = await series(run.id);
      expect(read.status).toBe(200);
      const found = read.body.find((s) => s.name === 'hand.exp');
      expect(found?.stats.count).toBe(2);
      for (const p of found?.stats.percentiles ?? []) expect(Number.isFinite(p.value)).toBe(true);
    },
  );

  it.each([
    [0, 1023, 'positive'],
    [0, 1023, 'negative'],
    [0, -1024, 'positive'],
    [3, 8191, 'positive'],
    [-2, 255, 'positive'],
    [20, 1024 << 20, 'positive'],
    [0, 2 ** 31, 'positive'],
  ] as const)(
    'refuses buckets past the ones a double maps to (scale %i, offset %i, %s)',
    async (scale, offset, side) => {
      const run = await createRun(server);
      const before = await rowsOfRun(server.app.database, run.id);
      const posted = await send(run.id, point(scale, offset, side));
      expect(posted.status).toBe(400);
      const body = checkAnswer('/v1/metrics', 400, await posted.json(), otlpStatus);
      expect(body.message).toMatch(new RegExp(`dataPoints\\[0\\].*${side}\\.offset`));
      expect(await rowsOfRun(server.app.database, run.id)).toEqual(before);
      expect((await series(run.id)).status).toBe(200);
    },
  );
});
