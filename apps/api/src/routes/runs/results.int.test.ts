import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, createRun, useServer } from '../../test/harness.ts';

const fixture = (path: string) =>
  readFileSync(new URL(`../../../../../fixtures/public/${path}`, import.meta.url), 'utf8');

/** GET /runs/{id}/results: the stored results of a run. */
const storedResults = z.array(storedLoadResult);

describe.each(backends)('load results on $name', (backend) => {
  const server = useServer(backend);
  const post = <S extends z.ZodType = typeof importResultsResponse>(
    runId: string,
    body: string | Uint8Array,
    query = '',
    headers: Record<string, string> = {},
    schema: S = importResultsResponse as z.ZodType as S,
  ) =>
    server.json(
      `/runs/${runId}/results${query}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', ...headers },
        body,
      },
      schema,
    );
  const stored = async (runId: string) =>
    (await server.json(`/runs/${runId}/results`, {}, storedResults)).body;

  it('imports an Istio perf CSV as many points, latencies from microseconds', async () => {
    const run = await createRun(server);
    const posted = await post(run.id, fixture('istio-tools/benchmark.csv'), '', {
      'content-type': 'text/csv',
    });
    // benchmark.csv: a header and 82 rows (wc -l says 83 lines).
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ format: 'istio-csv', imported: 82 });
    const points = await stored(run.id);
    expect(points).toHaveLength(82);
    // Row 1: Labels ecbc1c65_qps_1000_c_8_1024_v2-stats-nullvm_both, NumThreads 8, ActualQPS 1000,
    // p50 2241 us, p90 2839 us, p99 3363 us, client proxy CPU 277.05 millicores, memory 70.309375 Mi.
    expect(points[0]).toMatchObject({
      format: 'istio-csv',
      mode: 'both',
      connections: 8,
      achievedRps: 1000,
      percentiles: [
        { p: 50, ms: 2.241 },
        { p: 90, ms: 2.839 },
        { p: 99, ms: 3.363 },
      ],
      clientMemMiB: 70.309375,
    });
    expect(points[0]?.clientCpuCores).toBeCloseTo(0.2770500325408092, 12);
  });

  it('imports a Fortio file posted gzip, counts given as strings', async () => {
    const run = await createRun(server);
    // fortio_data_small.json (written by Nighthawk's Fortio formatter): NumThreads 1,
    // RequestedQPS 1, RetCodes {"200": "60"}, DurationHistogram.Count "48".
    const posted = await post(
      run.id,
      gzipSync(fixture('envoyproxy-nighthawk/fortio_data_small.json')),
      '?format=fortio',
      {
        'content-encoding': 'gzip',
      },
    );
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ format: 'fortio', imported: 1 });
    const [point] = await stored(run.id);
    expect(point).toMatchObject({
      connections: 1,
      targetRps: 1,
      requests: 48,
      startedAt: '2019-10-16T00:30:12.000000Z',
    });
  });

  it("adds requested percentiles a Fortio file lacks from its histogram, with the bucket's bounds", async () => {
    const run = await createRun(server);
    // Fortio 0.8.1's golden.json: 12000 requests, 27 buckets, "Percentiles": [].
    const posted = await post(run.id, fixture('envoyproxy-nighthawk/hist_fortio-data_golden.json'));
    expect(posted.status).toBe(201);
    expect((await stored(run.id))[0]?.percentiles).toEqual([]);

    const asked = await server.json(
      `/runs/${run.id}/results?percentiles=96,99.9`,
      {},
      storedResults,
    );
    expect(asked.status).toBe(200);
    // By hand from DurationHistogram.Data: rank 11520 of 12000 has 11400 below [0.05, 0.06] s
    // (206 values); rank 11988 has 11969 below [0.14, 0.16] s (21 values).
    const [p96, p999] = asked.body[0]?.percentiles ?? [];
    expect(p96).toMatchObject({
      p: 96,
      exact: false,
      method: 'tool-histogram',
      lower: 50,
      upper: 60,
    });
    expect(p96?.ms).toBeCloseTo(50 + (120 / 206) * 10, 9);
    expect(p999).toMatchObject({ p: 99.9, lower: 140, upper: 160 });
    expect(p999?.ms).toBeCloseTo(140 + (19 / 21) * 20, 9);

    const bad = await server.json(`/runs/${run.id}/results?percentiles=0,101`);
    expect(bad.status).toBe(400);
  });

  it('marks what a file states as reported, and keeps it over the histogram', async () => {
    const run = await createRun(server);
    // Nighthawk's Fortio output: p50 0.065077247 s stated, 53 requests in 31 buckets.
    await post(run.id, fixture('envoyproxy-nighthawk/output_formatter.medium.fortio.gold'));
    const asked = await server.json(`/runs/${run.id}/results?percentiles=50,96`, {}, storedResults);
    const ps = asked.body[0]?.percentiles ?? [];
    expect(ps.find((x) => x.p === 50)).toEqual({
      p: 50,
      ms: 65.077247,
      exact: false,
      method: 'reported',
    });
    expect(ps.find((x) => x.p === 96)?.method).toBe('tool-histogram');
  });

  it("imports k6's --out json stream as one point per scenario, percentiles with HDR bounds", async () => {
    const run = await createRun(server);
    const text = readFileSync(
      new URL('../../ingest/results/fixtures/k6-out-json.ndjson', import.meta.url),
      'utf8',
    );
    const posted = await post(run.id, text, '', { 'content-type': 'application/x-ndjson' });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ format: 'k6-ndjson', imported: 3 });
    const points = await stored(run.id);
    // fixtures/README.md: baseline holds 1.234567, 2.5 and 10 ms (a 503); P50 is 2500 us,
    // in the 2-us bucket [2500, 2501] of a 3-digit HdrHistogram.
    const baseline = points.find((x) => x.mode === 'baseline');
    expect(baseline).toMatchObject({ format: 'k6-ndjson', requests: 3, errors: 1 });
    expect(baseline?.percentiles.find((x) => x.p === 50)).toMatchObject({
      ms: 2.501,
      method: 'hdr',
      exact: false,
      lower: 2.4995,
      upper: 2.5015,
    });
    // Its samples are kept as interval histograms too: the stages view has them.
    const stages = await server.json(`/runs/${run.id}/results/stages`);
    expect(stages.status).toBe(200);
    const body = stages.body as { series: { requests: number }[]; stages: unknown[] };
    expect(body.stages).toHaveLength(3);
    expect(body.series.reduce((n, s) => n + s.requests, 0)).toBe(
      points.filter((x) => x.id !== null).reduce((n, x) => n + (x.requests ?? 0), 0),
    );
  });

  it('imports a k6 v1 machine-readable summary, with format=auto and format=k6', async () => {
    const v1 = readFileSync(
      new URL('../../ingest/results/fixtures/k6-v1-machine-readable.json', import.meta.url),
      'utf8',
    );
    for (const query of ['', '?format=k6']) {
      const run = await createRun(server);
      const posted = await post(run.id, v1, query, { 'content-type': 'application/json' });
      expect(posted.status).toBe(201);
      expect(posted.body).toMatchObject({ format: 'k6', imported: 1 });
      const [point] = await stored(run.id);
      // http_reqs.count, http_req_failed.matches, vus.max, config.duration 30.004511269 s
      expect(point).toMatchObject({ requests: 2990, errors: 12, connections: 100 });
      expect(point?.durationMs).toBe(30004.511269);
      expect(point?.percentiles).toEqual([
        { p: 50, ms: 1.6005555, exact: false, method: 'reported' },
        { p: 90, ms: 3.2591489, exact: false, method: 'reported' },
        { p: 95, ms: 4.3046355, exact: false, method: 'reported' },
      ]);
    }
  });

  describe('bad files: a 4xx with the reason, nothing stored', () => {
    const fortio = fixture('envoyproxy-nighthawk/fortio_data_small.json');
    it.each([
      ['truncated JSON', fortio.slice(0, 500), '', 400],
      [
        'NaN in a number',
        '{"RunType":"HTTP","ActualQPS":NaN,"NumThreads":4,"DurationHistogram":{"Count":10}}',
        '',
        400,
      ],
      ['the wrong format for the format given', fortio, '?format=istio-csv', 422],
      ['a file of no known kind', 'hello, this is not a result file\n', '', 415],
      ['an empty file', '', '', 400],
    ])('%s', async (_name, body, query, status) => {
      const run = await createRun(server);
      const posted = await post(run.id, body, query, {}, apiError);
      expect(posted.status).toBe(status);
      expect(String(posted.body.message).length).toBeGreaterThan(10);
      expect(await stored(run.id)).toEqual([]);
    });

    it('refuses a 50 MB file with 413', async () => {
      const run = await createRun(server);
      const big = `{"RunType":"HTTP","pad":"${'x'.repeat(50 * 1024 * 1024)}"}`;
      const posted = await post(run.id, big);
      expect(posted.status).toBe(413);
      expect(await stored(run.id)).toEqual([]);
    });

    it('answers 404 for an unknown run and 400 for an unknown format name', async () => {
      expect((await post('00000000-0000-0000-0000-000000000000', fortio)).status).toBe(404);
      const run = await createRun(server);
      expect((await post(run.id, fortio, '?format=jmeter')).status).toBe(400);
    });
  });

  describe('bounded parsing: no file holds the server', () => {
    /** Milliseconds a GET of the run's results takes, over a socket of its own. */
    const timedGet = (runId: string) =>
      new Promise<number>((resolve, reject) => {
        const started = performance.now();
        const req = httpRequest(
          `${server.url}/api/v1/runs/${runId}/results`,
          { headers: { authorization: `Bearer ${server.token}` }, agent: false },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 200
                ? resolve(performance.now() - started)
                : reject(new Error(`GET answered ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end();
      });

    it('answers a 30 MB non-JSON file quickly (413), and answers others meanwhile', async () => {
      const run = await createRun(server);
      const big = 'key: value\n'.repeat(2_800_000); // 30.8 MB of YAML-looking text
      const started = performance.now();
      const posting = post(run.id, big, '', {}, apiError);
      const meanwhile = await timedGet(run.id);
      const posted = await posting;
      expect(posted.status).toBe(413);
      expect(posted.body.message).toContain('MESHBENCH_MAX_RESULT_BYTES');
      expect(posted.body.message).toContain('8388608');
      expect(performance.now() - started).toBeLessThan(10_000);
      // The 30 MB upload runs in this same process, so this GET shares the loop with it.
      expect(meanwhile).toBeLessThan(5000);
      expect(await stored(run.id)).toEqual([]);
    });

    it('answers a gzip body that inflates past the limit with 413, in linear time', async () => {
      const run = await createRun(server);
      // 64 MB of one endless line, 64 KB on the wire.
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 'a'));
      const started = performance.now();
      const posted = await post(run.id, bomb, '', { 'content-encoding': 'gzip' }, apiError);
      expect(posted.status).toBe(413);
      expect(posted.body.message).toContain('8388608');
      expect(performance.now() - started).toBeLessThan(5000);
    });

    it('answers a concurrent GET while a 1 MB junk YAML-looking file is parsed, and refuses the file', async () => {
      const run = await createRun(server);
      // Looks like an SMP result at the top, then 1 MB of `k: v` lines: parsed as YAML,
      // this took 4 s on the event loop (the yaml library checks keys pairwise). How long
      // a GET waits meanwhile is measured by bench/upload-reads.ts (no timing here).
      const junk = `latencies_ms:\n${Array.from({ length: 85_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`;
      expect(junk.length).toBeGreaterThan(1_000_000);
      expect(junk.length).toBeLessThan(1024 * 1024); // under the YAML limit: it is parsed
      const posting = post(run.id, junk, '', {}, apiError);
      let postedYet = false;
      void posting.then(() => {
        postedYet = true;
      });
      // A GET answered while the parse still runs (it runs until the 5 s YAML limit).
      await new Promise((resolve) => setTimeout(resolve, 500));
      await timedGet(run.id);
      expect(postedYet).toBe(false);
      const posted = await posting;
      // Parsed off the event loop until the YAML time limit ends it.
      expect(posted.status).toBe(422);
      expect(posted.body.code).toBe('too_complex');
      expect(await stored(run.id)).toEqual([]);
    });
  });

  describe('bounded parsing with a larger limit', () => {
    const roomy = useServer(backend, { MESHBENCH_MAX_RESULT_BYTES: String(64 * 1024 * 1024) });

    it('refuses 30 MB of text that is no result without parsing it (415)', async () => {
      const run = await createRun(roomy);
      const big = 'key: value\n'.repeat(2_800_000);
      const started = performance.now();
      const posted = await roomy.json(
        `/runs/${run.id}/results`,
        {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: big,
        },
        apiError,
      );
      expect(posted.status).toBe(415);
      expect(performance.now() - started).toBeLessThan(10_000);
    });

    it('refuses a YAML-looking result past 1 MiB with 413 naming the YAML limit', async () => {
      const run = await createRun(roomy);
      const big = `latencies_ms:\n${'  p50: 1\n'.repeat(2_000_000)}`;
      const posted = await roomy.json(
        `/runs/${run.id}/results`,
        {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: big,
        },
        apiError,
      );
      expect(posted.status).toBe(413);
      expect(posted.body.message).toContain('YAML result files are limited to 1048576 bytes');
    });
  });
});
