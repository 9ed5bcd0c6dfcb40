// OTLP past capacity: senders that trickle their bodies must not lock the exporters that send
// at once out, and a replica at its bounds refuses at once with 503 + Retry-After (a status
// exporters retry) rather than queueing without end. Raw sockets for the slow senders, the
// OpenTelemetry JS SDK for a normal one. On both databases.
import { seriesList } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, type TestServer, useServer } from '../../test/harness.ts';
import { otelSender } from '../../test/otel-sender.ts';
import { headerOf, type RawUpload, rawUpload, statusOf } from '../../test/raw-upload.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An OTLP/JSON export of one gauge point for a run. */
const gaugeExport = (runId: string, name: string) =>
  JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name,
                gauge: { dataPoints: [{ timeUnixNano: `${Date.now()}000000`, asDouble: 7 }] },
              },
            ],
          },
        ],
      },
    ],
  });

/**
 * `n` senders of whole exports that send their first bytes, then one byte every 100 ms: never
 * idle long enough for MESHBENCH_BODY_TIMEOUT_MS, never done within the deadline.
 */
async function trickle(server: TestServer, runId: string, n: number) {
  const senders: RawUpload[] = [];
  for (let i = 0; i < n; i++) {
    const body = gaugeExport(runId, `slow.${i}`);
    senders.push(
      await rawUpload(server.url, '/v1/metrics', {
        token: server.token,
        contentType: 'application/json',
        contentLength: Buffer.byteLength(body),
        start: body.slice(0, 10),
      }),
    );
    let at = 10;
    const timer = setInterval(() => {
      const sender = senders[i] as RawUpload;
      if (at >= body.length - 1 || sender.socket.destroyed) clearInterval(timer);
      else sender.send(body.slice(at, ++at));
    }, 100);
    senders[i]?.socket.once('close', () => clearInterval(timer));
  }
  return senders;
}

/** A normal export, whole at once, timed. */
async function exportNow(server: TestServer, runId: string, name: string) {
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/metrics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
    body: gaugeExport(runId, name),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    text,
    ms: performance.now() - started,
  };
}

async function seriesNames(server: TestServer, runId: string): Promise<string[]> {
  const { body } = await server.json(`/runs/${runId}/series`, {}, seriesList);
  return body.map((s) => s.name).sort();
}

describe.each(backends)('OTLP with slow senders on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_OTLP_BODY_DEADLINE_MS: '5000' });

  it('serves a 17th exporter at once while 16 senders trickle, and cuts them at the deadline', async () => {
    const run = await createRun(server);
    const started = Date.now();
    const slow = await trickle(server, run.id, 16);
    await sleep(300);
    // The exporters that send at once are served, not locked out: a plain request, then
    // the OpenTelemetry JS SDK.
    const normal = await exportNow(server, run.id, 'normal.plain');
    expect(normal.status, normal.text).toBe(200);
    expect(normal.ms).toBeLessThan(1500);
    const sdk = otelSender({
      url: `${server.url}/v1/metrics`,
      token: server.token,
      resource: { 'service.name': 'sdk', 'meshbench.run': run.id },
    });
    await sdk.send({ op: 'add', name: 'normal.sdk', value: 3 }); // the process is up
    const flushed = performance.now();
    await sdk.send({ op: 'flush' });
    const sdkMs = performance.now() - flushed;
    await sdk.close();
    expect(sdkMs).toBeLessThan(1500);
    expect(await seriesNames(server, run.id)).toEqual(['normal.plain', 'normal.sdk']);

    // The trickling senders: cut at the deadline with 408, nothing of them stored.
    const answers = await Promise.all(slow.map((s) => s.response));
    const took = Date.now() - started;
    for (const answer of answers) {
      expect(statusOf(answer)).toBe(408);
      expect(answer).toContain('MESHBENCH_OTLP_BODY_DEADLINE_MS');
    }
    expect(took).toBeGreaterThanOrEqual(4900);
    expect(took).toBeLessThan(9000);
    expect(await seriesNames(server, run.id)).toEqual(['normal.plain', 'normal.sdk']);
    console.info(
      `16 slow senders: a normal export answered 200 in ${normal.ms.toFixed(0)} ms, the SDK's in ${sdkMs.toFixed(0)} ms; the slow ones 408 after ${took} ms`,
    );
  });
});

describe.each(backends)('OTLP at its bounds on $name', (backend) => {
  // Two slots of work: eight bodies may be arriving at once.
  const server = useServer(backend, {
    MESHBENCH_MAX_CONCURRENT_OTLP: '2',
    MESHBENCH_OTLP_BODY_DEADLINE_MS: '2000',
  });

  it('refuses at once with 503 + Retry-After past the bodies it may take, and serves again after', async () => {
    const run = await createRun(server);
    const before = server.app.services.otlp.counters.overloaded;
    const slow = await trickle(server, run.id, 8);
    await sleep(300);
    const refused = await exportNow(server, run.id, 'refused');
    expect(refused.status, refused.text).toBe(503);
    expect(refused.retryAfter).toBe('1');
    expect(refused.ms).toBeLessThan(500);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 14 }); // google.rpc UNAVAILABLE
    // A slow sender past the bound is refused at once as well, its connection closed.
    const ninth = await rawUpload(server.url, '/v1/metrics', {
      token: server.token,
      contentType: 'application/json',
      contentLength: 1000,
      start: '{"resourceM',
    });
    const ninthAnswer = await Promise.race([ninth.response, sleep(1000).then(() => '')]);
    ninth.abort();
    expect(statusOf(ninthAnswer)).toBe(503);
    expect(headerOf(ninthAnswer, 'retry-after')).toBe('1');
    expect(headerOf(ninthAnswer, 'connection')).toBe('close');
    expect(server.app.services.otlp.counters.overloaded - before).toBe(2);

    for (const answer of await Promise.all(slow.map((s) => s.response)))
      expect(statusOf(answer)).toBe(408);
    // The bound frees itself: the same export, sent again, is served.
    const again = await exportNow(server, run.id, 'refused');
    expect(again.status, again.text).toBe(200);
    expect(await seriesNames(server, run.id)).toEqual(['refused']);
  });
});
