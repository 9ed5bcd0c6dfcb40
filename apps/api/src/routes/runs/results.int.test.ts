import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { backends, createRun, useServer } from '../../test/harness.ts';

const fixture = (path: string) =>
  readFileSync(new URL(`../../../../../fixtures/public/${path}`, import.meta.url), 'utf8');

describe.each(backends)('load results on $name', (backend) => {
  const server = useServer(backend);
  const post = (
    runId: string,
    body: string | Uint8Array,
    query = '',
    headers: Record<string, string> = {},
  ) =>
    server.json<Record<string, unknown>>(`/runs/${runId}/results${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body,
    });
  const stored = async (runId: string) =>
    (await server.json<Record<string, unknown>[]>(`/runs/${runId}/results`)).body;

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
      const posted = await post(run.id, body, query);
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
});
