// bench/otlp-logs: 178,000 observations sent as OpenTelemetry log records (meshbench.observation
// events, protobuf, gzip) through POST /v1/logs, end to end against real Postgres (from the
// first request sent until the change's summary reads back whole), beside the same events
// through the events API (one gzip NDJSON batch) in the same run, each into a run of its own.
// The logs go two ways: as one request of them all, and in requests of 8,192 records (the
// OpenTelemetry Collector batch processor's default send_batch_size) one after another, each
// beside the events API with the same batching (and the one batch, the fastest).
// Bodies are encoded before the clock starts, by protobufjs from the vendored upstream proto.
// Usage: tsx otlp-logs.ts [--observations N] [--batch B] (DATABASE_URL, default the local test db)
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as schema from '@meshbench/schema';
import pg from 'pg';
import protobuf from 'protobufjs';
import { budget, reportBudgets } from './lib/budget.ts';
import { benchClient } from './lib/client.ts';
import { changeLine, latencyUs, observationBlock, T0_US } from './lib/propagation-data.ts';
import { AUTH, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('observations', 178_000);
const BATCH = arg('batch', 8192);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const root = protobuf.loadSync(
  fileURLToPath(new URL('../apps/api/src/ingest/otlp/logs.proto', import.meta.url)),
);
const Request = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
const Response = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const nanos = (us: number) => String(BigInt(Math.floor(us)) * 1000n);

const changeRecord = {
  eventName: 'meshbench.change',
  timeUnixNano: nanos(T0_US),
  attributes: [
    str('id', 'c1'),
    str('kind', 'endpoint'),
    str('target', 'hey'),
    str('action', 'delete'),
    { key: 'expected', value: { intValue: N } },
  ],
};
/** Observation i as the record a probe logs: the same event as observationBlock's line i. */
const observationRecord = (i: number) => ({
  eventName: 'meshbench.observation',
  timeUnixNano: nanos(T0_US + latencyUs(i)),
  attributes: [
    str('change', 'c1'),
    str('proxy', `proxy-${i}-sidecar`),
    str('node', `node-${i % 10_000}`),
  ],
});

/** Records [from, to) as one gzip ExportLogsServiceRequest of a probe fleet's resource. */
function logsBody(runId: string, records: object[]): Buffer {
  const message = Request.fromObject({
    resourceLogs: [
      {
        resource: { attributes: [str('service.name', 'mesh-probe'), str('meshbench.run', runId)] },
        scopeLogs: [{ scope: { name: 'meshbench-probe', version: '1' }, logRecords: records }],
      },
    ],
  });
  return gzipSync(Request.encode(message).finish());
}

const json =
  <T>(parser: { parse(value: unknown): T }) =>
  async (response: Response): Promise<T> => {
    const text = await response.text();
    if (!response.ok) throw new Error(`${response.status} ${text}`);
    return parser.parse(JSON.parse(text));
  };

async function deleteRun(runId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // As bench/ingest-propagation does: the large tables by run, then the run.
  for (const t of ['observations', 'latency_blocks', 'change_summaries', 'proxy_fingerprints'])
    await client.query(`delete from ${t} where run_id = $1`, [runId]);
  await client.query('delete from runs where id = $1', [runId]);
  await client.end();
}

async function main() {
  const api = await startApi({ DATABASE_URL: databaseUrl });
  const client = benchClient(api);
  const newRun = (scenario: string) =>
    client.runs.create({ benchmark: 'bench', scenario, mesh: { name: 'consul' } });
  /** The change's summary, read once everything is sent: it must hold every observation. */
  const summaryOf = async (runId: string) => {
    const summary = await client.runs.propagation(runId, 'c1');
    if (summary.count !== N) throw new Error(`stored ${summary.count} of ${N}`);
    const { computedAt: _, ...rest } = summary;
    return rest;
  };
  const exportLogs = async (body: Buffer) => {
    const response = await fetch(`${api.url}/v1/logs`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-protobuf',
        'content-encoding': 'gzip',
        ...AUTH,
      },
      body,
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!response.ok) throw new Error(`/v1/logs ${response.status} ${Buffer.from(bytes)}`);
    const answer = Response.toObject(Response.decode(bytes), { longs: Number }) as {
      partialSuccess?: { rejectedLogRecords?: number; errorMessage?: string };
    };
    if (answer.partialSuccess) throw new Error(`partial success: ${JSON.stringify(answer)}`);
  };

  try {
    const eventsBody = gzipSync(`${changeLine('c1', N)}\n${observationBlock('c1', 0, N)}`);
    const lines = observationBlock('c1', 0, N).trimEnd().split('\n');
    const eventBatches: Buffer[] = [];
    for (let from = -1; from < N; from += BATCH) {
      const part = lines.slice(Math.max(0, from), from + BATCH);
      eventBatches.push(
        gzipSync(from < 0 ? `${changeLine('c1', N)}\n${part.join('\n')}` : part.join('\n')),
      );
    }
    /** The events API: gzip NDJSON batches, until the summary reads back whole. */
    const viaEvents = async (bodies: Buffer[]) => {
      const run = await newRun('otlp-logs-baseline');
      const started = performance.now();
      for (const [k, body] of bodies.entries())
        await json(schema.ingestResult)(
          await fetch(`${api.url}/api/v1/runs/${run.id}/events`, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-ndjson',
              'content-encoding': 'gzip',
              'idempotency-key': `bench-${k}`,
              ...AUTH,
            },
            body,
          }),
        );
      const summary = await summaryOf(run.id);
      const ms = performance.now() - started;
      await deleteRun(run.id);
      return {
        ms,
        summary,
        requests: bodies.length,
        bytes: bodies.reduce((n, b) => n + b.length, 0),
      };
    };
    /** /v1/logs: the change, then the observations in requests of `batch` records. */
    const viaLogs = async (batch: number) => {
      const run = await newRun('otlp-logs');
      const bodies: Buffer[] = [];
      let records: object[] = [changeRecord];
      for (let i = 0; i < N; i++) {
        records.push(observationRecord(i));
        if (records.length === batch) {
          bodies.push(logsBody(run.id, records));
          records = [];
        }
      }
      if (records.length > 0) bodies.push(logsBody(run.id, records));
      const started = performance.now();
      for (const body of bodies) await exportLogs(body);
      const summary = await summaryOf(run.id);
      const ms = performance.now() - started;
      await deleteRun(run.id);
      return {
        ms,
        summary,
        requests: bodies.length,
        bytes: bodies.reduce((n, b) => n + b.length, 0),
      };
    };

    // The first of each runs in a process whose code V8 has not optimised yet: not counted.
    await viaEvents([eventsBody]);
    await viaLogs(N + 1);
    // The machine is shared: each one-batch figure is the best of 3, the two interleaved.
    const ones: Awaited<ReturnType<typeof viaEvents>>[] = [];
    const wholes: Awaited<ReturnType<typeof viaLogs>>[] = [];
    for (let k = 0; k < 3; k++) {
      ones.push(await viaEvents([eventsBody]));
      wholes.push(await viaLogs(N + 1));
    }
    const eventsBatched = await viaEvents(eventBatches);
    const batched = await viaLogs(BATCH);
    const best = <T extends { ms: number }>(list: T[]) =>
      list.reduce((a, b) => (b.ms < a.ms ? b : a));
    const events = best(ones);
    const whole = best(wholes);
    const baselineMs = events.ms;
    for (const logs of [batched, whole, eventsBatched])
      if (JSON.stringify(logs.summary) !== JSON.stringify(events.summary))
        throw new Error('the summary through /v1/logs differs from the events API one');

    const rate = (ms: number) => (N / ms) * 1000;
    const baseline = rate(baselineMs);
    console.log('\nbench/otlp-logs');
    console.log(
      `  observations                 ${fmt(N)} and their change (summaries through both paths equal, exactly)`,
    );
    console.log(
      `  events API, one gzip NDJSON  ${fmt(baselineMs)} ms = ${fmt(baseline)} events/s (best of 3: ${ones.map((o) => fmt(o.ms)).join(', ')} ms; body ${fmt(events.bytes / 1048576, 1)} MiB)`,
    );
    const batchedBaseline = rate(eventsBatched.ms);
    console.log(
      `  events API, ${fmt(BATCH)}/batch     ${fmt(eventsBatched.ms)} ms = ${fmt(batchedBaseline)} events/s over ${eventsBatched.requests} gzip NDJSON batches (${fmt(eventsBatched.bytes / 1048576, 1)} MiB)`,
    );
    // Each against the events API with the same batching: one request of all, or batches
    // of the same size (what an events batch costs is the events API's, on both paths).
    for (const [label, logs, name, base, baseName] of [
      [`/v1/logs, one request`, whole, 'in one request', baseline, 'one batch'],
      [
        `/v1/logs, ${fmt(BATCH)}/request`,
        batched,
        `in requests of ${BATCH}`,
        batchedBaseline,
        `batches of ${fmt(BATCH)}`,
      ],
    ] as const) {
      const r = rate(logs.ms);
      const tries =
        logs === whole ? ` (best of 3: ${wholes.map((o) => fmt(o.ms)).join(', ')} ms)` : '';
      console.log(
        `  ${label.padEnd(28)} ${fmt(logs.ms)} ms${tries} = ${fmt(r)} events/s over ${logs.requests} protobuf gzip request(s) (${fmt(logs.bytes / 1048576, 1)} MiB): ${fmt((r / base) * 100, 1)} % of the events API in ${baseName} (budget >= 30 %: ${budget(`/v1/logs ${name} >= 30 % of the events API`, r >= 0.3 * base)}); ${fmt((r / baseline) * 100, 1)} % of its one batch`,
      );
    }
  } finally {
    await api.stop();
  }
  reportBudgets('otlp-logs');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
