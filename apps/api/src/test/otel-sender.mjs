// A process that records metrics with the OpenTelemetry JS SDK and exports them over
// OTLP/HTTP, as an instrumented service does: the tests run it as a child process and
// drive it line by line on stdin, one JSON command a line, each answered "ok" on stdout.
//   {"op":"add","name":"pushes","value":5,"attributes":{...}}      a counter
//   {"op":"updown","name":"inflight","value":-2}                    an up-down counter
//   {"op":"record","name":"latency","value":12.5}                    a histogram
//   {"op":"gauge","name":"cpu","value":40}                           a gauge
//   {"op":"flush"}                                                   export now
//   {"op":"exit"}                                                    shut down, then exit
// Environment: OTLP_URL, OTLP_TOKEN, OTLP_PROTOCOL (proto | json), OTLP_TEMPORALITY
// (cumulative | delta), OTLP_RESOURCE (a JSON object of resource attributes),
// OTLP_EXPONENTIAL (histogram names aggregated as exponential histograms, comma-separated),
// OTLP_BOUNDARIES (a JSON object: histogram name -> its explicit bucket boundaries),
// OTLP_INTERVAL_MS (the reader's export interval; an hour, i.e. only on flush, unless set),
// OTLP_DIAG=1 (the SDK's own log, from info up, on stderr).
import { createInterface } from 'node:readline';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import {
  AggregationTemporalityPreference,
  OTLPMetricExporter as JsonExporter,
} from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';

const env = process.env;
if (env.OTLP_DIAG === '1') {
  const log =
    (level) =>
    (...args) =>
      process.stderr.write(`${new Date().toISOString()} ${level} ${args.join(' ')}\n`);
  diag.setLogger(
    {
      error: log('error'),
      warn: log('warn'),
      info: log('info'),
      debug: log('debug'),
      verbose: log('verbose'),
    },
    DiagLogLevel.INFO,
  );
}
const options = {
  url: env.OTLP_URL,
  headers: { authorization: `Bearer ${env.OTLP_TOKEN}` },
  temporalityPreference:
    env.OTLP_TEMPORALITY === 'delta'
      ? AggregationTemporalityPreference.DELTA
      : AggregationTemporalityPreference.CUMULATIVE,
};
const exporter =
  env.OTLP_PROTOCOL === 'json' ? new JsonExporter(options) : new ProtoExporter(options);
const provider = new MeterProvider({
  resource: resourceFromAttributes(JSON.parse(env.OTLP_RESOURCE ?? '{}')),
  readers: [
    new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: Number(env.OTLP_INTERVAL_MS ?? 3_600_000),
    }),
  ],
  views: [
    ...(env.OTLP_EXPONENTIAL ?? '')
      .split(',')
      .filter(Boolean)
      .map((name) => ({
        instrumentName: name,
        aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM },
      })),
    ...Object.entries(JSON.parse(env.OTLP_BOUNDARIES ?? '{}')).map(([name, boundaries]) => ({
      instrumentName: name,
      aggregation: { type: AggregationType.EXPLICIT_BUCKET_HISTOGRAM, options: { boundaries } },
    })),
  ],
});
const meter = provider.getMeter('meshbench-test-sender', '1.0.0');
const instruments = new Map();
const instrument = (kind, name) => {
  const key = `${kind}:${name}`;
  if (!instruments.has(key)) {
    const make = {
      add: () => meter.createCounter(name),
      updown: () => meter.createUpDownCounter(name),
      record: () => meter.createHistogram(name),
      gauge: () => meter.createGauge(name),
    }[kind];
    instruments.set(key, make());
  }
  return instruments.get(key);
};

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  if (c.op === 'flush') await provider.forceFlush();
  else if (c.op === 'exit') {
    await provider.shutdown();
    process.stdout.write('ok\n');
    process.exit(0);
  } else if (c.op === 'add' || c.op === 'updown')
    instrument(c.op, c.name).add(c.value, c.attributes);
  else if (c.op === 'record' || c.op === 'gauge')
    instrument(c.op, c.name).record(c.value, c.attributes);
  else throw new Error(`unknown op ${c.op}`);
  process.stdout.write('ok\n');
}
