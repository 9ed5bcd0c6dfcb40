// /v1/logs with the real sender: the OpenTelemetry JS logs SDK and its OTLP/HTTP exporters
// (protobuf and JSON) emitting probe events; what they store equals what the same events
// store through the events API, read back through the same reads.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { propagation } from '@meshbench/schema';
import { SeverityNumber } from '@opentelemetry/api';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  backends,
  createRun,
  ndjson,
  postEvents,
  type TestServer,
  useServer,
} from '../../test/harness.ts';

const logsRoot = protobuf.loadSync(
  fileURLToPath(new URL('../../ingest/otlp/logs.proto', import.meta.url)),
);
const ExportLogsServiceRequest = logsRoot.lookupType(
  'opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest',
);
const ExportLogsServiceResponse = logsRoot.lookupType(
  'opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse',
);

const T0_US = Date.UTC(2026, 1, 1, 10, 0, 0) * 1000;
/** An instant T0 + us as the SDK's HrTime [seconds, nanoseconds] (exact to the ns). */
const hr = (us: number): [number, number] => {
  const total = T0_US + us;
  return [Math.floor(total / 1e6), (total % 1e6) * 1000];
};
const iso = (us: number) => {
  const total = T0_US + us;
  const ms = Math.floor(total / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(total % 1000).padStart(3, '0')}Z`;
};

/** One probe event: how the events API takes it, and how a probe logs it with the SDK. */
interface Probe {
  event: Record<string, unknown>;
  log: { eventName: string; timestamp: [number, number]; attributes: Record<string, unknown> };
}

function probes(): Probe[] {
  const out: Probe[] = [];
  const change = { id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', expected: 12 };
  out.push({
    event: { type: 'change', ...change, at: iso(0) },
    log: { eventName: 'meshbench.change', timestamp: hr(0), attributes: change },
  });
  // Clock reports of two nodes: n-2 runs 3.25 ms ahead.
  for (const [node, offsetMs] of [
    ['n-1', 0.5],
    ['n-2', 3.25],
  ] as const) {
    const fields = { node, offsetMs, errorMs: 0.125 };
    out.push({
      event: { type: 'clock', ...fields, at: iso(-5_000_000) },
      log: { eventName: 'meshbench.clock', timestamp: hr(-5_000_000), attributes: fields },
    });
  }
  // Ten proxies apply it, at latencies with microsecond digits; one twice; some with a cause.
  const latencies = [
    120_001, 250_017, 333_333, 480_250, 564_200, 701_999, 815_200, 999_999, 1_250_000, 90_000_007,
  ];
  latencies.forEach((us, i) => {
    const fields: Record<string, unknown> = {
      change: 'c1',
      proxy: `p-${i}`,
      node: i % 2 === 0 ? 'n-1' : 'n-2',
      ...(us > 1_000_000 ? { cause: 'reconnect-backoff' } : {}),
    };
    out.push({
      event: {
        type: 'observation',
        ...fields,
        at: iso(us),
        ...(i === 3 ? { attrs: { az: 'us-east-1a' } } : {}),
      },
      log: {
        eventName: 'meshbench.observation',
        timestamp: hr(us),
        attributes: { ...fields, ...(i === 3 ? { 'attrs.az': 'us-east-1a' } : {}) },
      },
    });
  });
  out.push({
    event: { type: 'observation', change: 'c1', proxy: 'p-0', node: 'n-1', at: iso(140_000) },
    log: {
      eventName: 'meshbench.observation',
      timestamp: hr(140_000),
      attributes: { change: 'c1', proxy: 'p-0', node: 'n-1' },
    },
  });
  // The same proxy seen receiving before it applied: another stage.
  out.push({
    event: {
      type: 'observation',
      change: 'c1',
      proxy: 'p-1',
      node: 'n-2',
      stage: 'received',
      at: iso(200_000),
    },
    log: {
      eventName: 'meshbench.observation',
      timestamp: hr(200_000),
      attributes: { change: 'c1', proxy: 'p-1', node: 'n-2', stage: 'received' },
    },
  });
  out.push({
    event: { type: 'incident', kind: 'reconnect', node: 'n-2', proxy: 'p-9', from: iso(950_000) },
    log: {
      eventName: 'meshbench.incident',
      timestamp: hr(950_000),
      attributes: { kind: 'reconnect', node: 'n-2', proxy: 'p-9' },
    },
  });
  return out;
}

type Exporter = 'protobuf' | 'json';

async function emit(server: TestServer, exporter: Exporter, runRef: string, list: Probe[]) {
  const options = {
    url: `${server.url}/v1/logs`,
    headers: { authorization: `Bearer ${server.token}` },
  };
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'mesh-probe', 'meshbench.run': runRef }),
    processors: [
      // One export on flush: records exported apart may arrive in any order, and an
      // observation is refused (as by the events API) when its change is not stored yet.
      new BatchLogRecordProcessor({
        exporter: exporter === 'json' ? new JsonExporter(options) : new ProtoExporter(options),
        maxExportBatchSize: 1000,
        maxQueueSize: 1000,
        scheduledDelayMillis: 3_600_000,
      }),
    ],
  });
  const logger = provider.getLogger('meshbench-probe', '1.0.0');
  for (const p of list) {
    logger.emit({
      eventName: p.log.eventName,
      timestamp: p.log.timestamp,
      severityNumber: SeverityNumber.INFO,
      attributes: p.log.attributes as Record<string, string>,
    });
  }
  // A record that is not a meshbench event: counted rejected, never an error.
  logger.emit({ body: 'proxy started', severityNumber: SeverityNumber.INFO });
  await provider.forceFlush();
  await provider.shutdown();
}

async function read(server: TestServer, runId: string, query: string) {
  const answer = await server.json(
    `/runs/${runId}/changes/c1/propagation?${query}`,
    undefined,
    propagation,
  );
  expect(answer.status).toBe(200);
  // When the summary was computed is the one thing two runs' summaries may not share.
  const { computedAt: _, ...summary } = answer.body;
  return summary;
}

async function exported(server: TestServer, runId: string): Promise<string[]> {
  const response = await server.api(`/runs/${runId}/events`);
  expect(response.status).toBe(200);
  return (await response.text()).trim().split('\n').sort();
}

const postLogs = (server: TestServer, body: Uint8Array | string, headers: Record<string, string>) =>
  fetch(`${server.url}/v1/logs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, ...headers },
    body,
  });

const observationLog = (runRef: string, records: object[]) => ({
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runRef } }] },
      scopeLogs: [{ scope: { name: 'probe' }, logRecords: records }],
    },
  ],
});
const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });

describe.each(backends)('OTLP/HTTP logs on $name', (backend) => {
  const server = useServer(backend);

  describe.each(['protobuf', 'json'] as Exporter[])('the SDK exporting %s', (exporter) => {
    it('stores the events the events API stores, with the same propagation summary', async () => {
      const viaLogs = await createRun(server);
      const viaEvents = await createRun(server);
      const list = probes();
      await emit(server, exporter, viaLogs.slug, list);
      const posted = await postEvents(server, viaEvents.id, ndjson(list.map((p) => p.event)));
      expect(posted.status).toBe(200);

      expect(await exported(server, viaLogs.id)).toEqual(await exported(server, viaEvents.id));
      for (const query of [
        'percentiles=50,90,96,99,99.9&withinMs=1000',
        'stage=received',
        'clock=corrected&percentiles=50,99',
      ]) {
        const logs = await read(server, viaLogs.id, query);
        expect(logs.count).toBeGreaterThan(0);
        expect(logs).toEqual(await read(server, viaEvents.id, query));
      }
      // What the SDK sent, counted by hand: 10 proxies applied c1 (p-0 twice), 12 expected.
      const applied = await read(server, viaLogs.id, 'percentiles=50&withinMs=1000');
      expect(applied).toMatchObject({ count: 10, expected: 12, missing: 2, repeats: 1 });
      expect(applied.minMs).toBe(120.001);
      expect(applied.maxMs).toBe(90_000.007);
    });
  });

  it('takes gzip, and stores a retried export once', async () => {
    const run = await createRun(server);
    const request = ExportLogsServiceRequest.fromObject(
      observationLog(run.id, [
        {
          eventName: 'meshbench.change',
          timeUnixNano: String(BigInt(T0_US) * 1000n),
          attributes: [
            attr('id', 'c1'),
            attr('kind', 'route'),
            attr('target', 't'),
            attr('action', 'add'),
          ],
        },
        ...[1, 2, 3].map((i) => ({
          eventName: 'meshbench.observation',
          timeUnixNano: String(BigInt(T0_US + i * 1000) * 1000n + 999n),
          attributes: [attr('change', 'c1'), attr('proxy', `p${i}`)],
        })),
      ]),
    );
    const body = gzipSync(ExportLogsServiceRequest.encode(request).finish());
    const headers = { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' };
    const first = await postLogs(server, body, headers);
    expect(first.status).toBe(200);
    expect(
      ExportLogsServiceResponse.toObject(
        ExportLogsServiceResponse.decode(new Uint8Array(await first.arrayBuffer())),
      ),
    ).toEqual({});
    const again = await postLogs(server, body, headers);
    expect(again.status).toBe(200);
    const answer = ExportLogsServiceResponse.toObject(
      ExportLogsServiceResponse.decode(new Uint8Array(await again.arrayBuffer())),
      { longs: Number },
    );
    expect(answer.partialSuccess?.rejectedLogRecords ?? 0).toBe(0);
    expect(answer.partialSuccess?.errorMessage).toContain('4 event(s) were stored before');
    const lines = await exported(server, run.id);
    expect(lines).toHaveLength(4);
    // Nanoseconds past the microsecond are dropped, as the events API drops digits past 6.
    expect(lines.some((l) => l.includes('"at":"2026-02-01T10:00:00.001000Z"'))).toBe(true);
    const summary = await read(server, run.id, 'percentiles=50');
    expect(summary).toMatchObject({ count: 3, minMs: 1, maxMs: 3 });
  });

  it('counts records that are not meshbench events, or reach no run, in partial_success', async () => {
    const scrape = async (name: string) => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    };
    const names = ['requests', 'records', 'events', 'rejected_records'].map(
      (n) => `meshbench_otlp_logs_${n}_total`,
    );
    const before = await Promise.all(names.map(scrape));
    const run = await createRun(server);
    const records = [
      { timeUnixNano: '1', body: { stringValue: 'a plain log line' } },
      { eventName: 'other.event', timeUnixNano: '1' },
      { timeUnixNano: '1', attributes: [attr('event.name', 'k8s.pod.started')] },
      {
        eventName: 'meshbench.lifecycle',
        timeUnixNano: String(BigInt(T0_US) * 1000n),
        attributes: [attr('phase', 'running'), attr('entity', 'alloc-1')],
      },
    ];
    const body = {
      resourceLogs: [
        observationLog(run.id, records).resourceLogs[0],
        {
          resource: { attributes: [attr('meshbench.run', 'no-such-run')] },
          scopeLogs: [{ logRecords: [records[3]] }],
        },
        { scopeLogs: [{ logRecords: [records[3]] }] },
      ],
    };
    const response = await postLogs(server, JSON.stringify(body), {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      partialSuccess: { rejectedLogRecords: number; errorMessage: string };
    };
    expect(answer.partialSuccess.rejectedLogRecords).toBe(5);
    const message = answer.partialSuccess.errorMessage;
    expect(message).toContain(
      '1 log record(s): not an event (no event_name nor event.name attribute)',
    );
    expect(message).toContain('1 log record(s): not a meshbench event (event name "other.event")');
    expect(message).toContain(
      '1 log record(s): not a meshbench event (event name "k8s.pod.started")',
    );
    expect(message).toContain(
      '1 log record(s): named a run (meshbench.run or a run tag) that does not exist',
    );
    expect(message).toContain('1 log record(s): matched no run');
    expect(await exported(server, run.id)).toEqual([
      `{"type":"lifecycle","phase":"running","entity":"alloc-1","at":"${iso(0)}"}`,
    ]);
    // The API's own metrics count them: 1 request of 6 records, 1 event stored, 5 rejected.
    const after = await Promise.all(names.map(scrape));
    expect(after.map((n, i) => n - (before[i] as number))).toEqual([1, 6, 1, 5]);
  });

  it('refuses a malformed meshbench event with a 400 naming the record and field, storing nothing', async () => {
    const run = await createRun(server);
    const body = observationLog(run.id, [
      {
        eventName: 'meshbench.change',
        timeUnixNano: String(BigInt(T0_US) * 1000n),
        attributes: [
          attr('id', 'c1'),
          attr('kind', 'route'),
          attr('target', 't'),
          attr('action', 'add'),
        ],
      },
      {
        eventName: 'meshbench.observation',
        timeUnixNano: String(BigInt(T0_US) * 1000n),
        attributes: [attr('change', 'c1')],
      },
    ]);
    const response = await postLogs(server, JSON.stringify(body), {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(400);
    const status = (await response.json()) as { code: number; message: string };
    expect(status.code).toBe(3);
    expect(status.message).toBe(
      'log record resourceLogs[0].scopeLogs[0].logRecords[1] (meshbench.observation): missing required field "proxy" in an observation event',
    );
    const events = await server.api(`/runs/${run.id}/events`);
    expect((await events.text()).trim()).toBe('');

    // An observation of a change neither sent nor stored: the events API's 422, on the record.
    const unknown = observationLog(run.id, [
      {
        eventName: 'meshbench.observation',
        timeUnixNano: String(BigInt(T0_US) * 1000n),
        attributes: [attr('change', 'c9'), attr('proxy', 'p')],
      },
    ]);
    const refused = await postLogs(server, JSON.stringify(unknown), {
      'content-type': 'application/json',
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toBe(
      'log record resourceLogs[0].scopeLogs[0].logRecords[0] (meshbench.observation): observation of change "c9", which is neither in this batch nor stored for this run',
    );
  });

  it('stores nothing anywhere when an event of one of several runs is malformed', async () => {
    const first = await createRun(server);
    const second = await createRun(server);
    const lifecycle = (entity: string) => ({
      eventName: 'meshbench.lifecycle',
      timeUnixNano: String(BigInt(T0_US) * 1000n),
      attributes: [attr('phase', 'running'), attr('entity', entity)],
    });
    const body = {
      resourceLogs: [
        observationLog(first.id, [lifecycle('a-1')]).resourceLogs[0],
        // The second run's event has an empty entity, which the events API refuses.
        observationLog(second.id, [lifecycle('b-1'), lifecycle('')]).resourceLogs[0],
      ],
    };
    const response = await postLogs(server, JSON.stringify(body), {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(
      /^log record resourceLogs\[1\]\.scopeLogs\[0\]\.logRecords\[1\] \(meshbench\.lifecycle\): "entity" /,
    );
    expect(await exported(server, first.id)).toEqual(['']);
    expect(await exported(server, second.id)).toEqual(['']);

    // Without the malformed one, each run gets its own.
    body.resourceLogs[1] = observationLog(second.id, [lifecycle('b-1')]).resourceLogs[0];
    const stored = await postLogs(server, JSON.stringify(body), {
      'content-type': 'application/json',
    });
    expect(stored.status).toBe(200);
    expect(await exported(server, first.id)).toHaveLength(1);
    expect(await exported(server, second.id)).toHaveLength(1);
  });

  it('stores nothing of any run when the part of another run fails in the transaction', async () => {
    // Both orders: a request's runs are written in run id order, so whichever of the two is
    // written first, the other's failure (found only while storing: a change neither sent nor
    // stored, which no check before the transaction sees) must take it back.
    for (const failing of [0, 1]) {
      const runs = [await createRun(server), await createRun(server)];
      const good = (runId: string) =>
        observationLog(runId, [
          {
            eventName: 'meshbench.lifecycle',
            timeUnixNano: String(BigInt(T0_US) * 1000n),
            attributes: [attr('phase', 'running'), attr('entity', `e-${runId}`)],
          },
        ]).resourceLogs[0];
      const bad = (runId: string) =>
        observationLog(runId, [
          {
            eventName: 'meshbench.lifecycle',
            timeUnixNano: String(BigInt(T0_US) * 1000n),
            attributes: [attr('phase', 'running'), attr('entity', 'x')],
          },
          {
            eventName: 'meshbench.observation',
            timeUnixNano: String(BigInt(T0_US) * 1000n),
            attributes: [attr('change', 'never-sent'), attr('proxy', 'p')],
          },
        ]).resourceLogs[0];
      const body = {
        resourceLogs: runs.map((run, i) => (i === failing ? bad(run.id) : good(run.id))),
      };
      const response = await postLogs(server, JSON.stringify(body), {
        'content-type': 'application/json',
      });
      expect(response.status).toBe(422);
      expect(((await response.json()) as { message: string }).message).toBe(
        `log record resourceLogs[${failing}].scopeLogs[0].logRecords[1] (meshbench.observation): observation of change "never-sent", which is neither in this batch nor stored for this run`,
      );
      for (const run of runs) expect(await exported(server, run.id)).toEqual(['']);

      // The same request without the failing record stores both runs' events, once each.
      body.resourceLogs[failing] = good((runs[failing] as { id: string }).id);
      for (let attempt = 0; attempt < 2; attempt++) {
        const stored = await postLogs(server, JSON.stringify(body), {
          'content-type': 'application/json',
        });
        expect(stored.status).toBe(200);
      }
      for (const run of runs) expect(await exported(server, run.id)).toHaveLength(1);
    }
  });
});
