// Debian's hey (/usr/bin/hey, rakyll/hey 0.1.4) run against a local server this test starts,
// its `-o csv` posted as hey wrote it. What comes back is checked against the file read here
// with split and Number and nothing of the decoder: the counts, the rate, the errors by
// status, and each percentile against the nearest-rank value of the file's raw samples, with
// hey's 0.1 ms rounding as its [lower, upper].
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, createRun, useServer } from '../../test/harness.ts';
import { type LoadTarget, startLoadTarget } from '../../test/load-target.ts';

const HEY = process.env.HEY_BIN ?? '/usr/bin/hey';
const REQUESTS = 400;
/** Below the file's size: the upload is read as it arrives, never whole. */
const BUFFERED_LIMIT = 4096;

let target: LoadTarget;
let csv: string;
beforeAll(async () => {
  target = await startLoadTarget({ failEvery: 9 });
  const { stdout } = await promisify(execFile)(
    HEY,
    ['-n', String(REQUESTS), '-c', '4', '-t', '5', '-o', 'csv', target.url],
    { timeout: 30_000 },
  );
  csv = stdout;
}, 40_000);
afterAll(() => target?.close());

/** The file's samples, as hey wrote them: ms, status, end (ms since the run's start). */
function rawSamples(text: string) {
  const [header, ...rows] = text.trim().split('\n');
  const names = (header as string).split(',');
  const at = (name: string) => names.indexOf(name);
  const samples = rows.map((row) => {
    const cells = row.split(',');
    const seconds = Number(cells[at('response-time')]);
    return {
      ms: seconds * 1000,
      status: cells[at('status-code')] as string,
      endMs: (Number(cells[at('offset')]) + seconds) * 1000,
    };
  });
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return { header, samples, sorted, spanMs: Math.max(...samples.map((s) => s.endMs)) };
}

const nearestRank = (sorted: number[], p: number) =>
  sorted[Math.ceil((p / 100) * sorted.length) - 1] as number;

describe.each(backends)('a real hey -o csv on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_MAX_RESULT_BYTES: String(BUFFERED_LIMIT) });
  const post = (runId: string, body: string | Uint8Array, query = '', headers = {}) =>
    server.json(
      `/runs/${runId}/results${query}`,
      { method: 'POST', headers: { 'content-type': 'text/csv', ...headers }, body },
      z.union([importResultsResponse, apiError]),
    );
  const storedOf = async (runId: string) =>
    (await server.json(`/runs/${runId}/results`, {}, z.array(storedLoadResult))).body;

  it('is told by its header and stored as its raw samples say', async () => {
    const raw = rawSamples(csv);
    expect(raw.header).toBe(
      'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset',
    );
    expect(raw.samples).toHaveLength(REQUESTS);
    expect(Buffer.byteLength(csv)).toBeGreaterThan(BUFFERED_LIMIT);
    const run = await createRun(server);
    const posted = await post(run.id, gzipSync(csv), '', { 'content-encoding': 'gzip' });
    expect(posted.body).toMatchObject({ format: 'hey', imported: 1 });
    expect(posted.status).toBe(201);

    const [point] = await storedOf(run.id);
    const failed = raw.samples.filter((s) => s.status === '503').length;
    expect(failed).toBe(target.served().failed);
    expect(failed).toBeGreaterThan(0);
    expect(point).toMatchObject({
      format: 'hey',
      requests: REQUESTS,
      errors: failed,
      errorsByCode: { '503': failed },
    });
    expect(point?.durationMs).toBeCloseTo(raw.spanMs, 6);
    expect(point?.achievedRps).toBeCloseTo(REQUESTS / (raw.spanMs / 1000), 6);
    expect(point?.minMs).toBeCloseTo(raw.sorted[0] as number, 9);
    expect(point?.maxMs).toBeCloseTo(raw.sorted.at(-1) as number, 9);
    expect(point?.percentiles.map((q) => q.p)).toEqual([50, 75, 90, 95, 99, 99.9, 99.99, 100]);
    for (const q of point?.percentiles ?? []) {
      const v = nearestRank(raw.sorted, q.p);
      expect(q.ms).toBeCloseTo(v, 9);
      // Recorded to 0.1 ms, rounded: not exact, the true value within 0.05 ms either side.
      expect(q).toMatchObject({ exact: false, method: 'raw' });
      expect(q.lower).toBeLessThanOrEqual(v);
      expect(q.upper).toBeGreaterThanOrEqual(v);
      expect((q.upper as number) - (q.lower as number)).toBeCloseTo(v >= 0.05 ? 0.1 : 0.05 + v, 9);
    }
  });

  it('stores the same named (format=hey) as the buffered decoder does', async () => {
    const streamed = await createRun(server);
    const buffered = await createRun(server);
    expect((await post(streamed.id, csv, '?format=hey')).status).toBe(201);
    await server.app.services.results.import(buffered.id, csv, 'hey');
    const strip = (rows: z.infer<typeof storedLoadResult>[]) => rows.map(({ id: _id, ...r }) => r);
    expect(strip(await storedOf(streamed.id))).toEqual(strip(await storedOf(buffered.id)));
  });

  it('refuses a bad line deep in the file naming it, and stores nothing', async () => {
    const lines = csv.trim().split('\n');
    lines[350] = (lines[350] as string).replace(/^[^,]*/, 'soon');
    const run = await createRun(server);
    const posted = await post(run.id, lines.join('\n'));
    expect(posted.status).toBe(400);
    expect(posted.body).toMatchObject({ code: 'invalid_line', line: 351 });
    expect(JSON.stringify(posted.body)).toContain('line 351: response-time \\"soon\\"');
    expect(await storedOf(run.id)).toEqual([]);
  });

  it('answers a file of no format it reads with the formats it reads', async () => {
    const run = await createRun(server);
    const posted = await post(run.id, 'when,what\n1,2\n');
    expect(posted.status).toBe(415);
    expect(JSON.stringify(posted.body)).toContain('hey (a hey -o csv file)');
  });
});
