// Result files stored once, and what a file says beyond its numbers: the same file posted
// twice (or retried under its Idempotency-Key) is answered as the first and stored once, on
// the buffered and the streamed (k6 --out json) paths; a k6 summary keeps k6's threshold
// verdict; a k6 stream cut inside its last line keeps the lines before it and says where; a
// Fortio run that sent nothing has no latencies.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { k6Stream } from '../../ingest/results/k6-ndjson.test-fixtures.ts';
import { FORTIO_NOTHING_SENT } from '../../ingest/results/test-fixtures.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const publicFixture = (path: string) =>
  readFileSync(new URL(`../../../../../fixtures/public/${path}`, import.meta.url), 'utf8');
const localFixture = (name: string) =>
  readFileSync(new URL(`../../ingest/results/fixtures/${name}`, import.meta.url), 'utf8');

const answer = z.union([importResultsResponse, apiError]);
const stream = k6Stream({
  seed: 11,
  startMs: Date.UTC(2026, 10, 26, 14),
  seconds: 3,
  perSecond: 50,
});
const streamText = `${[...stream.lines()].join('\n')}\n`;

describe.each(backends)('result uploads on $name', (backend) => {
  const server = useServer(backend);
  const post = (
    runId: string,
    body: string | Uint8Array,
    { query = '', headers = {} }: { query?: string; headers?: Record<string, string> } = {},
  ) =>
    server.json(
      `/runs/${runId}/results${query}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', ...headers },
        body,
      },
      answer,
    );
  /** The stored points (not the merged rows of steps with per-generator points). */
  const stored = async (runId: string) =>
    (await server.json(`/runs/${runId}/results`, {}, z.array(storedLoadResult))).body.filter(
      (r) => r.id !== null,
    );

  it('stores a file posted twice once, and answers the repeat as the first', async () => {
    const run = await createRun(server);
    const file = publicFixture('envoyproxy-nighthawk/hist_fortio-data_golden.json');
    const first = await post(run.id, file);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ format: 'fortio', imported: 1, duplicate: false });
    const again = await post(run.id, file);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, duplicate: true });
    // The same file gzipped, twice: its bytes as sent differ from the plain file's (one more
    // point), and the second is a repeat of the first.
    const gzip = { headers: { 'content-encoding': 'gzip' } };
    expect((await post(run.id, gzipSync(file), gzip)).body).toMatchObject({ duplicate: false });
    expect((await post(run.id, gzipSync(file), gzip)).body).toMatchObject({ duplicate: true });
    expect(await stored(run.id)).toHaveLength(2);
    // Another run is another place: stored there.
    const other = await createRun(server);
    expect((await post(other.id, file)).status).toBe(201);
  });

  it('acknowledges a retry under its Idempotency-Key, and refuses the key for another file', async () => {
    const run = await createRun(server);
    const key = { 'idempotency-key': `upload-${run.id}` };
    const file = localFixture('k6-summary-export.json');
    expect((await post(run.id, file, { headers: key })).status).toBe(201);
    const retry = await post(run.id, file, { headers: key });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ duplicate: true, format: 'k6', imported: 1 });
    const reused = await post(run.id, localFixture('k6-handle-summary.json'), { headers: key });
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await stored(run.id)).toHaveLength(1);
  });

  it('recognises a k6 stream sent again on the streamed path, by its bytes and by its key', async () => {
    const run = await createRun(server);
    const first = await post(run.id, streamText);
    expect(first.body).toMatchObject({ format: 'k6-ndjson', imported: 1, duplicate: false });
    expect((await post(run.id, streamText)).body).toMatchObject({ duplicate: true });
    // The same stream as another generator is another point.
    const asG2 = await post(run.id, streamText, { query: '?generator=g2' });
    expect(asG2.body).toMatchObject({ duplicate: false, imported: 1 });
    expect(await stored(run.id)).toHaveLength(2);

    const keyed = await createRun(server);
    const key = { 'idempotency-key': 'k6-stream-upload-1' };
    expect((await post(keyed.id, streamText, { headers: key })).status).toBe(201);
    const retry = await post(keyed.id, streamText, { headers: key });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ duplicate: true });
    const other = `${[...k6Stream({ seed: 12, startMs: Date.UTC(2026, 10, 26, 15), seconds: 2, perSecond: 10 }).lines()].join('\n')}\n`;
    expect((await post(keyed.id, other, { headers: key })).body).toMatchObject({
      code: 'idempotency_key_reused',
    });
    expect(await stored(keyed.id)).toHaveLength(1);
  });

  it('stores two identical uploads sent at once once', async () => {
    const run = await createRun(server);
    const file = publicFixture('envoyproxy-nighthawk/fortio_data_small.json');
    const answers = await Promise.all([post(run.id, file), post(run.id, file), post(run.id, file)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 201]);
    expect(answers.filter((a) => (a.body as { duplicate: boolean }).duplicate)).toHaveLength(2);
    expect(await stored(run.id)).toHaveLength(1);
  });

  it("keeps a k6 summary's threshold verdicts and says which were crossed", async () => {
    const run = await createRun(server);
    // k6-summary-export.json: p(95)<500 on http_req_duration and rate<0.01 on
    // http_req_failed, both written false (--summary-export writes !ok): both held. Here the
    // first is written true: crossed.
    const file = localFixture('k6-summary-export.json').replace(
      '"p(95)<500": false',
      '"p(95)<500": true',
    );
    const posted = await post(run.id, file);
    expect(posted.body).toMatchObject({
      notes: ['result 1 (unspecified): 1 of 2 thresholds crossed: http_req_duration p(95)<500'],
    });
    const [point] = await stored(run.id);
    expect(point?.thresholds).toEqual([
      { metric: 'http_req_duration', threshold: 'p(95)<500', ok: false },
      { metric: 'http_req_failed', threshold: 'rate<0.01', ok: true },
    ]);
  });

  it('does not keep the test script a k6 v1 summary carries', async () => {
    const run = await createRun(server);
    const posted = await post(run.id, localFixture('k6-v1-machine-readable.json'));
    expect(posted.body).toMatchObject({ format: 'k6', imported: 1 });
    expect((posted.body as { unmapped: string[] }).unmapped).toContain('config.script');
    const text = JSON.stringify(await stored(run.id));
    expect(text).not.toContain('mb_example_not_a_real_token');
    expect(text).not.toContain('fortio-server.bench.svc');
  });

  it('keeps the whole lines of a k6 stream cut inside its last one, and says where', async () => {
    const run = await createRun(server);
    const lines = streamText.split('\n').filter((l) => l !== '');
    // 3 Metric lines + 150 requests x 2 points = 303 lines; the last cut after 25 bytes.
    expect(lines).toHaveLength(303);
    const whole = `${lines.slice(0, 302).join('\n')}\n`;
    const cut = `${whole}${(lines[302] as string).slice(0, 25)}`;
    const posted = await post(run.id, gzipSync(cut), { headers: { 'content-encoding': 'gzip' } });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({
      imported: 1,
      truncated: { line: 303, byte: Buffer.byteLength(whole) + 1 },
    });
    expect((posted.body as { notes: string[] }).notes).toEqual([
      `the stream ends inside line 303 (from byte ${Buffer.byteLength(whole) + 1}): cut off while it was written, that line is left out and the 302 lines before it are stored`,
    ]);
    // The last whole request's duration point is the cut line: 149 of the 150 are stored.
    const [point] = await stored(run.id);
    expect(point?.requests).toBe(149);
  });

  it('states no latency for a Fortio run that sent nothing, and says so', async () => {
    const run = await createRun(server);
    const posted = await post(run.id, FORTIO_NOTHING_SENT);
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({
      notes: [
        'result 1 (baseline 0 qps): no request was sent (0 requests); its latencies are left empty',
      ],
    });
    const [point] = await stored(run.id);
    expect(point).toMatchObject({
      requests: 0,
      minMs: null,
      meanMs: null,
      maxMs: null,
      percentiles: [],
    });
  });
});
