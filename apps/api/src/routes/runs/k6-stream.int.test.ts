// k6's --out json stream read as it arrives: a body past the buffered limit is taken and
// stored as the raw values say, the same as the buffered decoder stores it, and a stream
// cut off or refused part way stores nothing.
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import {
  apiError,
  importResultsResponse,
  type LoadStages,
  loadStages,
  type StoredLoadResult,
  storedLoadResult,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { k6Stream, nearestRank } from '../../ingest/results/k6-ndjson.test-fixtures.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const START = Date.UTC(2026, 10, 26, 13, 0, 0);
const BUFFERED_LIMIT = 8 * 1024 * 1024;

// 40 s at 800 requests a second: 64,003 lines, ~23 MB decompressed, ~1.5 MB gzip.
const large = k6Stream({ seed: 7, startMs: START, seconds: 40, perSecond: 800 });
const largeText = `${[...large.lines()].join('\n')}\n`;
const largeGzip = gzipSync(largeText);
const small = k6Stream({ seed: 8, startMs: START, seconds: 5, perSecond: 100, medianUs: 900 });
const smallText = [...small.lines()].join('\n');

/** |ms - v| within what a 3-digit HdrHistogram bucket allows (values are whole us). */
const withinHdr = (ms: number, v: number) => expect(Math.abs(ms - v)).toBeLessThanOrEqual(v / 1024);

/** The stored point and the stages against the raw latencies, each second one interval. */
function expectMatches(stored: StoredLoadResult[], stages: LoadStages, seconds: number[][]) {
  const all = seconds.flat();
  expect(stored).toHaveLength(1);
  const [point] = stored as [StoredLoadResult];
  expect(point.format).toBe('k6-ndjson');
  expect(point.requests).toBe(all.length);
  expect(point.errors).toBe(0);
  withinHdr(point.minMs as number, Math.min(...all));
  withinHdr(point.maxMs as number, Math.max(...all));
  expect(point.percentiles.map((q) => q.p)).toEqual([50, 75, 90, 95, 99, 99.9, 99.99, 100]);
  for (const q of point.percentiles) {
    const v = nearestRank(all, q.p);
    expect(q.method).toBe('hdr');
    expect(q.lower).toBeLessThanOrEqual(v);
    expect(q.upper).toBeGreaterThanOrEqual(v);
    withinHdr(q.ms, v);
  }
  expect(stages.intervalMs).toBe(1000);
  expect(stages.series.map((s) => [s.startMs, s.requests])).toEqual(
    seconds.map((values, s) => [START + s * 1000, values.length]),
  );
  stages.series.forEach((slot, s) => {
    expect(slot.percentiles.map((q) => q.p)).toEqual([50, 99]);
    for (const q of slot.percentiles) withinHdr(q.ms, nearestRank(seconds[s] as number[], q.p));
  });
}

describe.each(backends)('k6 --out json streamed on $name', (backend) => {
  const server = useServer(backend);
  const post = (runId: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
    server.json(
      `/runs/${runId}/results`,
      { method: 'POST', headers: { 'content-type': 'application/x-ndjson', ...headers }, body },
      z.union([importResultsResponse, apiError]),
    );
  const storedOf = async (runId: string) =>
    (await server.json(`/runs/${runId}/results`, {}, z.array(storedLoadResult))).body;
  const stagesOf = async (runId: string) =>
    loadStages.parse(
      (await server.json(`/runs/${runId}/results/stages?percentiles=50,99`, {}, loadStages)).body,
    );

  it('takes a gzip stream of 23 MB decompressed (past the buffered 8 MiB) as the raw values say', async () => {
    expect(Buffer.byteLength(largeText)).toBeGreaterThan(2 * BUFFERED_LIMIT);
    const run = await createRun(server);
    const posted = await post(run.id, largeGzip, { 'content-encoding': 'gzip' });
    expect(posted.body).toMatchObject({ format: 'k6-ndjson', imported: 1 });
    expect(posted.status).toBe(201);
    expectMatches(await storedOf(run.id), await stagesOf(run.id), large.seconds);
  });

  it('stores the same streamed as the buffered decoder does (small and large files)', async () => {
    for (const [text, body, headers] of [
      [smallText, smallText, {}],
      [largeText, largeGzip, { 'content-encoding': 'gzip' }],
    ] as const) {
      const streamed = await createRun(server);
      const buffered = await createRun(server);
      expect((await post(streamed.id, body, headers)).status).toBe(201);
      // The buffered path, the whole text decoded at once (no size limit below the route).
      await server.app.services.results.import(buffered.id, text, 'k6-ndjson');
      const strip = (rows: StoredLoadResult[]) => rows.map(({ id: _id, ...r }) => r);
      expect(strip(await storedOf(streamed.id))).toEqual(strip(await storedOf(buffered.id)));
      expect(await stagesOf(streamed.id)).toEqual(await stagesOf(buffered.id));
    }
    const run = await createRun(server);
    expect((await post(run.id, smallText)).status).toBe(201);
    expectMatches(await storedOf(run.id), await stagesOf(run.id), small.seconds);
  });

  it('stores nothing of an upload the client cuts off, and stays healthy', async () => {
    const run = await createRun(server);
    const rejected = server.app.services.uploads.results.rejected;
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${server.url}/api/v1/runs/${run.id}/results`, {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${server.token}`,
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          'content-length': String(largeGzip.length),
        },
      });
      req.on('error', () => resolve());
      req.on('response', () => reject(new Error('answered before the body ended')));
      // Half the body, then the socket goes away.
      req.write(largeGzip.subarray(0, largeGzip.length >> 1), () =>
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 300),
      );
    });
    // The route counts the upload rejected once the stream ends in the client's abort.
    const deadline = Date.now() + 10_000;
    while (server.app.services.uploads.results.rejected === rejected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(server.app.services.uploads.results.rejected).toBe(rejected + 1);
    expect(server.app.services.uploads.results.lastRejection?.message).toContain('went away');
    expect(await storedOf(run.id)).toEqual([]);
    expect((await server.json('/health')).status).toBe(200);
    expect((await post(run.id, largeGzip, { 'content-encoding': 'gzip' })).status).toBe(201);
    expect(await storedOf(run.id)).toHaveLength(1);
  });

  it('refuses a bad line deep in the stream naming its number, and stores nothing', async () => {
    const lines = largeText.split('\n');
    // Line 50,001 (1-based) is an http_req_duration point; it loses its closing braces.
    expect(lines[50_000]).toContain('"metric":"http_req_duration"');
    lines[50_000] = (lines[50_000] as string).slice(0, -3);
    const run = await createRun(server);
    const posted = await post(run.id, gzipSync(lines.join('\n')), { 'content-encoding': 'gzip' });
    expect(posted.status).toBe(400);
    expect(posted.body).toMatchObject({ code: 'invalid_json', line: 50_001 });
    expect((posted.body as { message: string }).message).toContain('line 50001');
    expect(await storedOf(run.id)).toEqual([]);
  });

  it('refuses invalid UTF-8 deep in the stream naming its line, and stores nothing', async () => {
    const cut = largeText.indexOf('\n', 20_000_000) + 1;
    const line = largeText.slice(0, cut).split('\n').length;
    const body = Buffer.concat([
      Buffer.from(largeText.slice(0, cut + 30)),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(largeText.slice(cut + 30)),
    ]);
    const run = await createRun(server);
    const posted = await post(run.id, gzipSync(body), { 'content-encoding': 'gzip' });
    expect(posted.status).toBe(400);
    expect(posted.body).toMatchObject({ code: 'invalid_utf8' });
    expect((posted.body as { message: string }).message).toContain(
      `byte ${cut + 31}, line ${line}`,
    );
    expect(await storedOf(run.id)).toEqual([]);
  });

  it('answers 404 for an unknown run', async () => {
    const posted = await post('00000000-0000-4000-8000-000000000000', smallText);
    expect(posted.status).toBe(404);
    expect((await server.json('/health')).status).toBe(200);
  });

  describe('past MESHBENCH_MAX_STREAM_RESULT_BYTES', () => {
    const limited = useServer(backend, { MESHBENCH_MAX_STREAM_RESULT_BYTES: String(1 << 20) });
    it('answers 413 naming the variable, and stores nothing', async () => {
      const run = await createRun(limited);
      const posted = await limited.json(
        `/runs/${run.id}/results?format=k6-ndjson`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
          body: largeGzip,
        },
        apiError,
      );
      expect(posted.status).toBe(413);
      expect(posted.body.message).toContain('MESHBENCH_MAX_STREAM_RESULT_BYTES');
      expect(posted.body.message).toContain('1048576');
      expect(
        (await limited.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult))).body,
      ).toEqual([]);
    });
  });
});
