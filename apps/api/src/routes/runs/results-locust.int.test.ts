// Locust's own files, written by the real Locust (Debian's python3-locust) against a server
// this test starts, posted through the upload API: what is stored equals a recomputation from
// the file's rows and buckets, and each percentile's bound holds the true nearest-rank value
// of the response times Locust measured.
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  haveLocust,
  type LocustRun,
  locustVersion,
  runLocust,
  trueNearestRank,
} from '../../ingest/results/locust.test-fixtures.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const storedResults = z.array(storedLoadResult);
type Stored = z.infer<typeof storedLoadResult>;

/** The raw values Locust can have rounded to key k (stats.py bucket_response_time), by hand. */
function keyRange(k: number): [number, number] {
  if (k < 100) return [k - 0.5, k + 0.5];
  if (k === 100) return [99.5, 105];
  if (k < 1000) return [k - 5, k + 5];
  if (k === 1000) return [995, 1050];
  if (k < 10000) return [k - 50, k + 50];
  if (k === 10000) return [9950, 10500];
  return [k - 500, k + 500];
}

/** CSV cells by header, for the test's own reading of Locust's CSV. */
function csvRows(text: string): Record<string, string>[] {
  const [head, ...rows] = text.trim().split(/\r?\n/);
  const names = (head as string).split(',');
  return rows.map((line) => Object.fromEntries(line.split(',').map((c, i) => [names[i], c])));
}

const sampleKey = (r: Stored) => (r.labels.aggregated ? '' : `${r.labels.method} ${r.labels.name}`);

/** Each stated percentile's bound holds the true nearest-rank value of the measured times. */
function expectBoundsHoldTruth(r: Stored, samples: Map<string, number[]>) {
  const values = samples.get(sampleKey(r)) as number[];
  expect(values.length).toBe(r.requests);
  expect(r.percentiles.length).toBeGreaterThan(0);
  for (const q of r.percentiles) {
    const truth = trueNearestRank(values, q.p);
    expect(q.exact).toBe(false);
    expect(q.method).toBe('tool-histogram');
    expect(q.lower as number, `p${q.p} lower`).toBeLessThanOrEqual(truth);
    expect(q.upper as number, `p${q.p} upper`).toBeGreaterThanOrEqual(truth);
    expect(q.ms).toBeGreaterThanOrEqual(q.lower as number);
    expect(q.ms).toBeLessThanOrEqual(q.upper as number);
  }
}

describe.skipIf(!haveLocust)(`real Locust ${haveLocust ? locustVersion() : ''}`, () => {
  let alone: LocustRun;
  let cluster: LocustRun;
  beforeAll(async () => {
    // Long enough for 2.12 to flush its history (every 5 s) after the last request.
    alone = await runLocust({ workers: 0, seconds: 8, active: 4 });
    cluster = await runLocust({ workers: 2, seconds: 6, active: 3 });
  }, 120_000);

  describe.each(backends)('on $name', (backend) => {
    const server = useServer(backend);
    const post = (runId: string, body: string, query = '') =>
      server.json(
        `/runs/${runId}/results${query}`,
        { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body },
        importResultsResponse,
      );
    const stored = async (runId: string) =>
      (await server.json(`/runs/${runId}/results`, {}, storedResults)).body;

    it('_stats.csv: every row as Locust wrote it, each percentile bounded around the truth', async () => {
      const run = await createRun(server);
      const text = alone.file('_stats.csv');
      const posted = await post(run.id, text);
      expect(posted.status).toBe(201);
      const rows = csvRows(text);
      expect(posted.body).toMatchObject({ format: 'locust', imported: rows.length });
      const points = await stored(run.id);
      expect(points).toHaveLength(rows.length);
      for (const [i, row] of rows.entries()) {
        const r = points[i] as Stored;
        expect(r.format).toBe('locust');
        expect(r.labels.name).toBe(row.Name);
        expect(r.requests).toBe(Number(row['Request Count']));
        expect(r.errors).toBe(Number(row['Failure Count']));
        expect(r.achievedRps).toBe(Number(row['Requests/s']));
        expect(r.minMs).toBe(Number(row['Min Response Time']));
        expect(r.maxMs).toBe(Number(row['Max Response Time']));
        // p50 is Locust's median (nearest rank, clamped into [min, max] by Locust).
        expect(r.percentiles.find((q) => q.p === 50)?.ms).toBe(Number(row['Median Response Time']));
        // The others are its columns (a key past the run's max moved down to it).
        for (const p of ['66', '75', '90', '95', '99', '99.9', '100']) {
          const q = r.percentiles.find((x) => String(x.p) === p);
          expect(q?.ms).toBe(Math.min(Number(row[`${p}%`]), Number(row['Max Response Time'])));
        }
        expectBoundsHoldTruth(r, alone.samples);
      }
      // The aggregated row holds every request the locustfile saw.
      expect(points.at(-1)?.labels.aggregated).toBe('true');
    });

    it('--json (serialize_stats): counts, rate and nearest-rank percentiles from its buckets', async () => {
      for (const locust of [alone, cluster]) {
        const run = await createRun(server);
        const text = locust.file('report.json');
        const doc = JSON.parse(text) as Array<{
          name: string;
          method: string;
          num_requests: number;
          num_failures: number;
          start_time: number;
          last_request_timestamp: number;
          min_response_time: number;
          max_response_time: number;
          response_times: Record<string, number>;
        }>;
        const posted = await post(run.id, text);
        expect(posted.status).toBe(201);
        expect(posted.body).toMatchObject({ format: 'locust', imported: doc.length + 1 });
        const points = await stored(run.id);
        const [total, ...entries] = points as [Stored, ...Stored[]];
        expect(total.labels.aggregated).toBe('true');
        const all = doc.flatMap((e) =>
          Object.entries(e.response_times).flatMap(([k, n]) => Array<number>(n).fill(Number(k))),
        );
        expect(total.requests).toBe(doc.reduce((n, e) => n + e.num_requests, 0));
        expect(total.requests).toBe(all.length);
        expect(total.errors).toBe(doc.reduce((n, e) => n + e.num_failures, 0));
        const start = Math.min(...doc.map((e) => e.start_time));
        const last = Math.max(...doc.map((e) => e.last_request_timestamp));
        expect(total.achievedRps).toBeCloseTo(all.length / (last - start), 9);
        for (const [r, keys, e] of [
          [total, all, null],
          ...entries.map((r) => {
            const e = doc.find((d) => d.name === r.labels.name) as (typeof doc)[number];
            const keys = Object.entries(e.response_times).flatMap(([k, n]) =>
              Array<number>(n).fill(Number(k)),
            );
            return [r, keys, e] as const;
          }),
        ] as const) {
          expect(r.requests).toBe(keys.length);
          const min = e ? e.min_response_time : Math.min(...doc.map((d) => d.min_response_time));
          const max = e ? e.max_response_time : Math.max(...doc.map((d) => d.max_response_time));
          expect(r.minMs).toBe(min);
          expect(r.maxMs).toBe(max);
          expect(r.histogram?.reduce((n, b) => n + b.count, 0)).toBe(keys.length);
          for (const q of r.percentiles) {
            // The key at the nearest rank, and its range cut to the entry's exact extremes.
            const key = trueNearestRank(keys, q.p);
            const [lo, hi] = keyRange(key);
            expect([q.p, q.lower, q.upper]).toEqual([
              q.p,
              Math.min(Math.max(lo, min), hi),
              Math.max(Math.min(hi, max), Math.min(Math.max(lo, min), hi)),
            ]);
          }
          expectBoundsHoldTruth(r, locust.samples);
        }
      }
    });

    it('_stats_history.csv: cumulative totals only, its trailing-window columns named as not stored', async () => {
      const run = await createRun(server);
      const text = alone.file('_stats_history.csv');
      const posted = await post(run.id, text);
      expect(posted.status).toBe(201);
      expect(posted.body.unmapped).toEqual(
        expect.arrayContaining([
          'Requests/s (a trailing window)',
          'percentiles (a trailing window)',
        ]),
      );
      const rows = csvRows(text);
      const points = await stored(run.id);
      for (const r of points) {
        const last = rows.filter((row) => row.Name === r.labels.name).at(-1) as Record<
          string,
          string
        >;
        expect(r.requests).toBe(Number(last['Total Request Count']));
        expect(r.errors).toBe(Number(last['Total Failure Count']));
        expect(r.achievedRps).toBeNull();
        // Only the cumulative median: no window percentile is stored as the run's.
        expect(r.percentiles.map((q) => q.p)).toEqual([50]);
        expectBoundsHoldTruth(r, alone.samples);
      }
    });

    it('takes the users, mode and target rate a Locust file does not hold from the query', async () => {
      const run = await createRun(server);
      const text = alone.file('report.json');
      const posted = await post(run.id, text, '?connections=20&mode=both&targetRps=300');
      expect(posted.status).toBe(201);
      for (const r of await stored(run.id))
        expect(r).toMatchObject({ connections: 20, mode: 'both', targetRps: 300 });
      // What only interval logs take is still refused, naming the parameter.
      const refused = await server.json(
        `/runs/${run.id}/results?generator=g1`,
        { method: 'POST', body: alone.file('_stats.csv') },
        apiError,
      );
      expect(refused.status).toBe(400);
      expect(refused.body.field).toBe('generator');
    });

    it('_failures.csv and _exceptions.csv: failures by kind', async () => {
      const run = await createRun(server);
      const posted = await post(run.id, alone.file('_failures.csv'));
      expect(posted.status).toBe(201);
      const [fail] = await stored(run.id);
      const failed = alone.samples.get('GET /fail')?.length;
      expect(fail).toMatchObject({ errors: failed, errorsByCode: { '500': failed } });
      // The locustfile raises nothing: a header alone holds no result.
      const empty = await server.json(
        `/runs/${run.id}/results?format=locust`,
        { method: 'POST', body: alone.file('_exceptions.csv') },
        apiError,
      );
      expect(empty.status).toBe(422);
      expect(empty.body.code).toBe('no_results');
    });
  });
});
