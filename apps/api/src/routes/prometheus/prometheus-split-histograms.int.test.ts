// Classic histogram families split across remote-write requests, as Prometheus' shards send
// them (each series on its own shard, batches cut at max_samples_per_send): the parts of
// each point are assembled into one histogram point, whatever the split and the order, a
// retried part stored once; the run's histogram then reads exactly as the same family sent
// whole in one request.
import type { Series } from '@meshbench/schema';
import { seriesList } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, type TestServer, useServer } from '../../test/harness.ts';
import { CONTENT_TYPE_V1, compress, encodeV1, postWrite } from '../../test/remote-write-proto.ts';

let n = 0;
const unique = (what: string) => `${what}_${process.pid}_${Date.now()}_${n++}`;
const iso = (ms: number) => new Date(ms).toISOString();

async function series(server: TestServer, runId: string): Promise<Series[]> {
  const { status, body } = await server.json(`/runs/${runId}/series`, undefined, seriesList);
  expect(status).toBe(200);
  return body;
}

const labels = (name: string, rest: Record<string, string>) => [
  { name: '__name__', value: name },
  ...Object.entries(rest).map(([k, v]) => ({ name: k, value: v })),
];

/**
 * Three scrapes of one histogram (cumulative, le 0.1, 0.5, 1, +Inf): between the first and
 * the last, 12 observations, 3 <= 0.1, 4 in (0.1, 0.5], 3 in (0.5, 1], 2 above; sum 9.5.
 */
const SCRAPES = [
  { buckets: { '0.1': 1, '0.5': 2, '1': 3 }, inf: 4, sum: 1.5, count: 4 },
  { buckets: { '0.1': 2, '0.5': 4, '1': 6 }, inf: 8, sum: 5, count: 8 },
  { buckets: { '0.1': 4, '0.5': 8, '1': 11 }, inf: 16, sum: 11, count: 16 },
];

type Part = '0.1' | '0.5' | '1' | '+Inf' | 'sum' | 'count';
const ALL: Part[] = ['0.1', '0.5', '1', '+Inf', 'sum', 'count'];

/** The series of `parts` of the scrapes `which` of `family`, as a 1.0 request's timeseries. */
function timeseries(
  family: string,
  own: Record<string, string>,
  at: (i: number) => number,
  which: number[],
  parts: Part[],
) {
  return parts.map((part) => {
    const name =
      part === 'sum' ? `${family}_sum` : part === 'count' ? `${family}_count` : `${family}_bucket`;
    const tags = part === 'sum' || part === 'count' ? own : { ...own, le: part };
    return {
      labels: labels(name, tags),
      samples: which.map((i) => {
        const s = SCRAPES[i] as (typeof SCRAPES)[number];
        const value =
          part === 'sum'
            ? s.sum
            : part === 'count'
              ? s.count
              : part === '+Inf'
                ? s.inf
                : (s.buckets[part] as number);
        return { value, timestamp: at(i) };
      }),
    };
  });
}

describe.each(backends)(
  'classic histograms split across remote-write requests on $name',
  (backend) => {
    const server = useServer(backend);
    const v1 = async (message: object) => {
      const answer = await postWrite(
        server.url,
        server.token,
        compress(encodeV1(message)),
        CONTENT_TYPE_V1,
      );
      expect(answer.status).toBe(204);
      return answer;
    };

    /**
     * Sends the scrapes of a new run's family as `requests` say (each: which scrapes, which
     * parts), after the family's metadata when `typed`; returns the run's series.
     */
    async function sendAs(
      family: string,
      requests: { scrapes: number[]; parts: Part[] }[],
      typed: boolean,
    ): Promise<Series[]> {
      const t0 = Date.now() - 60_000;
      const run = await createRun(server, { startedAt: iso(t0) });
      const own = { meshbench_run: run.id, job: 'istiod' };
      const at = (i: number) => t0 + (i + 1) * 1000;
      if (typed) {
        await v1({ metadata: [{ type: 3, metricFamilyName: family, help: '', unit: 'seconds' }] });
      }
      for (const r of requests) {
        await v1({ timeseries: timeseries(family, own, at, r.scrapes, r.parts) });
      }
      return series(server, run.id);
    }

    const histogramOf = (list: Series[], family: string) => {
      // Every part joined its point: no bucket, sum or count left as a series of its own.
      expect(list.map((s) => `${s.name}:${s.kind}`)).toEqual([`${family}:histogram`]);
      return list[0] as Series;
    };

    it('2-way: buckets in one request, sum and count in another, either first, a part retried', async () => {
      const family = unique('split2_seconds');
      const whole = histogramOf(
        await sendAs(family, [{ scrapes: [0, 1, 2], parts: ALL }], false),
        family,
      );
      // What the unsplit family reads: 12 observations, sum 9.5, P50 (rank 6) in (0.1, 0.5].
      expect(whole.stats.count).toBe(12);
      expect(whole.stats.sum).toBeCloseTo(9.5, 12);
      expect(whole.stats.percentiles?.find((p) => p.p === 50)).toMatchObject({
        lower: 0.1,
        upper: 0.5,
      });
      const buckets: Part[] = ['0.1', '0.5', '1', '+Inf'];
      const sumCount: Part[] = ['sum', 'count'];
      const splits: {
        what: string;
        typed: boolean;
        requests: { scrapes: number[]; parts: Part[] }[];
      }[] = [
        {
          what: 'buckets first',
          typed: false,
          requests: [
            { scrapes: [0, 1, 2], parts: buckets },
            { scrapes: [0, 1, 2], parts: sumCount },
          ],
        },
        {
          what: 'sum and count first (typed by metadata)',
          typed: true,
          requests: [
            { scrapes: [0, 1, 2], parts: sumCount },
            { scrapes: [0, 1, 2], parts: buckets },
          ],
        },
        {
          what: 'per scrape, buckets retried after the point was stored',
          typed: false,
          requests: [
            { scrapes: [0], parts: buckets },
            { scrapes: [0], parts: sumCount },
            { scrapes: [1, 2], parts: sumCount },
            { scrapes: [1, 2], parts: buckets },
            { scrapes: [1, 2], parts: buckets },
          ],
        },
        {
          what: 'a part retried before the point completes',
          typed: true,
          requests: [
            { scrapes: [0, 1, 2], parts: sumCount },
            { scrapes: [0, 1, 2], parts: sumCount },
            { scrapes: [0, 1, 2], parts: buckets },
          ],
        },
      ];
      for (const split of splits) {
        const got = histogramOf(await sendAs(family, split.requests, split.typed), family);
        expect({ what: split.what, stats: got.stats }).toEqual({
          what: split.what,
          stats: whole.stats,
        });
      }
    });

    it('3-way: buckets split across requests, sum and count in a third, in every order, a part retried', async () => {
      const family = unique('split3_seconds');
      const whole = histogramOf(
        await sendAs(family, [{ scrapes: [0, 1, 2], parts: ALL }], true),
        family,
      );
      const thirds: Part[][] = [
        ['0.1', '0.5'],
        ['1', '+Inf'],
        ['sum', 'count'],
      ];
      const orders = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
      ];
      for (const order of orders) {
        // The family's first scrape arrives whole (what later points are held to: its le
        // values); the next two in thirds, in this order, the first third sent twice.
        const [a, b, c] = order.map((i) => thirds[i] as Part[]) as [Part[], Part[], Part[]];
        const got = histogramOf(
          await sendAs(
            family,
            [
              { scrapes: [0], parts: ALL },
              { scrapes: [1, 2], parts: a },
              { scrapes: [1, 2], parts: b },
              { scrapes: [1, 2], parts: a },
              { scrapes: [1, 2], parts: c },
            ],
            true,
          ),
          family,
        );
        expect({ order, stats: got.stats }).toEqual({ order, stats: whole.stats });
      }
    });

    it('3-way: the first point split too, the +Inf bucket with the sum and count', async () => {
      const family = unique('split3first_seconds');
      const whole = histogramOf(
        await sendAs(family, [{ scrapes: [0, 1, 2], parts: ALL }], false),
        family,
      );
      const got = histogramOf(
        await sendAs(
          family,
          [
            { scrapes: [0, 1, 2], parts: ['0.1', '0.5'] },
            { scrapes: [0, 1, 2], parts: ['1'] },
            { scrapes: [0, 1, 2], parts: ['+Inf', 'sum', 'count'] },
          ],
          false,
        ),
        family,
      );
      expect(got.stats).toEqual(whole.stats);
    });
  },
);
