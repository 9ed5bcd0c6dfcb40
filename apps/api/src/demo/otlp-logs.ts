// A propagation run whose probes send their events as OpenTelemetry logs: the OpenTelemetry
// JS logs SDK with its OTLP/HTTP protobuf exporter posts to /v1/logs, as a probe beside each
// proxy (or a Collector tailing its log) would. Each event is a record named
// meshbench.<type>, its fields attributes, its time the record's (docs/otlp-logs.md).

import type { ProbeEvent, Run } from '@meshbench/schema';
import type { Attributes } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchLogRecordProcessor,
  LoggerProvider,
  type LogRecordExporter,
  type ReadableLogRecord,
} from '@opentelemetry/sdk-logs';
import { TIME_FIELD } from '../ingest/otlp/log-events.ts';
import { parseTimestampUs } from '../ingest/timestamps.ts';
import { apiClient } from './client.ts';
import {
  consulScenario,
  endpointPropagationRun,
  type PropagationScenario,
} from './endpoint-propagation.ts';

/** Consul again, a quarter of the nodes, its probes exporting OTLP logs. */
export const otlpLogsScenario: PropagationScenario = {
  ...consulScenario,
  seed: 20210424,
  nodes: 250,
  t0: '2026-02-01T16:00:00.000000Z',
  received: false,
  clocks: { seed: 5906, skewed: 0.06, unreported: 0.02 },
};

/** The run's label that says how its events came. */
export const OTLP_LOGS_LABEL = { probes: 'otlp-logs' };

/** One probe event as the log record a probe emits: name, time, fields as attributes. */
export function probeLogRecord(event: ProbeEvent) {
  const timeField = TIME_FIELD[event.type];
  const attributes: Attributes = {};
  let time: string | undefined;
  for (const [key, value] of Object.entries(event)) {
    if (key === 'type') continue;
    if (key === timeField) time = value as string;
    else if (key === 'attrs')
      for (const [k, v] of Object.entries(value as Record<string, string>))
        attributes[`attrs.${k}`] = v;
    else attributes[key] = value as string | number;
  }
  // A clock report of an NTP exchange has no time of its own: it is logged when it ended.
  const us = parseTimestampUs(time ?? (event as { t4?: string }).t4 ?? '') as number;
  return {
    eventName: `meshbench.${event.type}`,
    severityNumber: SeverityNumber.INFO,
    timestamp: [Math.floor(us / 1e6), (us % 1e6) * 1000] as [number, number],
    attributes,
  };
}

/** The OTLP exporter, with every failed export kept to be thrown after the flush. */
function failingLoudly(inner: OTLPLogExporter, failures: Error[]): LogRecordExporter {
  return {
    export(records: ReadableLogRecord[], done) {
      inner.export(records, (result) => {
        if (result.code !== 0) failures.push(result.error ?? new Error('OTLP logs export failed'));
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush(),
  };
}

/** Creates the run, exports its events as logs through the SDK, finishes it. */
export async function loadOtlpLogsPropagation(opts: {
  baseUrl: string;
  token?: string | undefined;
}): Promise<Run> {
  const api = apiClient(opts.baseUrl, opts.token);
  const { run, events } = endpointPropagationRun(otlpLogsScenario);
  const { finishedAt, ...started } = run;
  const created = await api.createRun({
    ...started,
    labels: { ...started.labels, ...OTLP_LOGS_LABEL },
  });
  const failures: Error[] = [];
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({
      'service.name': 'meshbench-demo-probe',
      'meshbench.run': created.id,
    }),
    processors: [
      new BatchLogRecordProcessor({
        exporter: failingLoudly(
          new OTLPLogExporter({
            url: `${opts.baseUrl}/v1/logs`,
            ...(opts.token ? { headers: { authorization: `Bearer ${opts.token}` } } : {}),
          }),
          failures,
        ),
        // The Collector batch processor's default batch; every record queued until a flush.
        maxExportBatchSize: 8192,
        maxQueueSize: events.length,
        scheduledDelayMillis: 3_600_000,
      }),
    ],
  });
  const logger = provider.getLogger('meshbench-demo-probe', '1.0.0');
  try {
    // The change (and the clock reports, incidents) first: an observation of a change not
    // stored yet is refused, and records exported apart may arrive in any order.
    for (const event of events)
      if (event.type !== 'observation') logger.emit(probeLogRecord(event));
    await provider.forceFlush();
    for (const event of events)
      if (event.type === 'observation') logger.emit(probeLogRecord(event));
    await provider.forceFlush();
  } finally {
    await provider.shutdown();
  }
  if (failures.length > 0) throw failures[0];
  return api.finishRun(created.id, finishedAt);
}
