// Percentiles that say what they are, with real clients against the running app: the
// OpenTelemetry JS SDK (a child process) records known values into an explicit-bucket and
// an exponential histogram, with delta and with cumulative temporality; hot-shots sends
// timer samples over UDP. Every expected value is the nearest rank of the values sent,
// sorted here.
import { apiError, type QuantileValue, seriesList, seriesPoints } from '@meshbench/schema';
import StatsD from 'hot-shots';
import { describe, expect, it } from 'vitest';
import { backends, createRun } from '../../test/harness.ts';
import { until, useMetricsServer } from '../../test/metrics-harness.ts';
import { otelSender } from '../../test/otel-sender.ts';

const ASKED = [50, 90, 96, 99, 99.9];
const QUERY = `percentiles=${ASKED.join(',')}`;

/** Nearest rank: the ceil(p/100 * n)-th smallest value. */
function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(Math.round((p / 100) * sorted.length * 1e9) / 1e9));
  return sorted[rank - 1] as number;
}

/** Three export intervals, each holding the smallest and the largest value (so every delta
 * point needs the same exponential scale as the cumulative one), the rest seeded. */
function intervals(): number[][] {
  let a = 42;
  const rnd = () => {
    a = (a * 1103515245 + 12345) % 2 ** 31;
    return a / 2 ** 31;
  };
  return [0, 1, 2].map(() => [
    0.75,
    3200,
    ...Array.from({ length: 40 }, () => Math.round((1 + rnd() ** 2 * 3000) * 1000) / 1000),
  ]);
}

/** The stated bound holds the true value, and the value lies within its own bound. */
function expectHonest(q: QuantileValue, truth: number, method: string) {
  expect(q.exact).toBe(false);
  expect(q.method).toBe(method);
  const lower = q.lower ?? Number.NEGATIVE_INFINITY;
  const upper = q.upper ?? Number.POSITIVE_INFINITY;
  expect(lower, `P${q.p}: lower ${lower} <= true ${truth}`).toBeLessThanOrEqual(truth);
  expect(upper, `P${q.p}: upper ${upper} >= true ${truth}`).toBeGreaterThanOrEqual(truth);
  expect(q.value).toBeGreaterThanOrEqual(lower);
  expect(q.value).toBeLessThanOrEqual(upper);
}

describe.each(backends)('metric percentiles on $name', (backend) => {
  const server = useMetricsServer(backend, { MESHBENCH_STATSD_FLUSH_MS: '200' });
  const seriesOf = async (runId: string, query = QUERY) => {
    const { status, body } = await server.json(`/runs/${runId}/series?${query}`, {}, seriesList);
    expect(status).toBe(200);
    return (name: string) => {
      const found = body.find((s) => s.name === name);
      if (!found) throw new Error(`no series ${name} in ${body.map((s) => s.name).join(', ')}`);
      return found;
    };
  };

  const recorded = intervals();
  const all = recorded.flat();

  /** The SDK records the intervals with `temporality`, exporting after each. */
  async function export3(temporality: 'delta' | 'cumulative') {
    const run = await createRun(server);
    const sdk = otelSender({
      url: `${server.url}/v1/metrics`,
      token: server.token,
      temporality,
      resource: { 'service.name': 'istiod', 'meshbench.run': run.id },
      exponential: ['push.exp'],
    });
    for (const values of recorded) {
      for (const value of values) {
        await sdk.send({ op: 'record', name: 'push.explicit', value });
        await sdk.send({ op: 'record', name: 'push.exp', value });
      }
      await sdk.send({ op: 'flush' });
    }
    await sdk.close();
    return run;
  }

  it('bounds every percentile of the SDK histograms honestly, the same for delta and cumulative', async () => {
    const answers: Record<string, QuantileValue[]> = {};
    for (const temporality of ['delta', 'cumulative'] as const) {
      const run = await export3(temporality);
      const get = await seriesOf(run.id);
      const explicit = get('push.explicit');
      const exp = get('push.exp');
      expect(explicit).toMatchObject({ kind: 'histogram', stats: { count: all.length } });
      expect(exp).toMatchObject({ kind: 'exponential_histogram', stats: { count: all.length } });
      for (const s of [explicit, exp]) {
        expect(s.stats.percentiles?.map((q) => q.p)).toEqual(ASKED);
      }
      for (const q of explicit.stats.percentiles ?? []) {
        expectHonest(q, nearestRank(all, q.p), 'explicit-histogram');
      }
      for (const q of exp.stats.percentiles ?? []) {
        expectHonest(q, nearestRank(all, q.p), 'exponential-histogram');
        // An exponential bucket's width is set by the scale: at most a factor of 2.
        expect((q.upper as number) / (q.lower as number)).toBeLessThanOrEqual(2);
      }
      answers[`${temporality} explicit`] = explicit.stats.percentiles ?? [];
      answers[`${temporality} exp`] = exp.stats.percentiles ?? [];

      // The points endpoint: the same stats, and each bucket's own bounded percentiles.
      const points = await server.json(
        `/runs/${run.id}/series/${exp.id}/points?${QUERY}`,
        {},
        seriesPoints,
      );
      expect(points.status).toBe(200);
      expect(points.body.series.stats.percentiles).toEqual(exp.stats.percentiles);
      const withData = points.body.points.filter((p) => (p.count ?? 0) > 0);
      expect(withData.length).toBeGreaterThan(0);
      for (const p of withData) {
        expect(p.percentiles?.map((q) => q.p)).toEqual(ASKED);
        for (const q of p.percentiles ?? []) {
          expect(q.value).toBeGreaterThanOrEqual(q.lower as number);
          expect(q.value).toBeLessThanOrEqual(q.upper as number);
        }
      }
    }
    expect(answers['delta explicit']).toEqual(answers['cumulative explicit']);
    expect(answers['delta exp']).toEqual(answers['cumulative exp']);
  });

  it('refuses a percentile outside (0, 100], naming it', async () => {
    const run = await createRun(server);
    const { status, body } = await server.json(
      `/runs/${run.id}/series?percentiles=50,101`,
      {},
      apiError,
    );
    expect(status).toBe(400);
    expect(body.message).toContain('percentiles');
  });

  it('gives exact nearest-rank percentiles of at most 256 hot-shots timer samples', async () => {
    const run = await createRun(server);
    const client = new StatsD({
      host: '127.0.0.1',
      port: server.udpPort,
      protocol: 'udp',
      globalTags: { run: run.id },
      maxBufferSize: 1400,
      bufferFlushInterval: 5,
    });
    // 200 distinct values, sent in a scrambled order: (i * 77) mod 200 visits each i once.
    const values = Array.from({ length: 200 }, (_, i) => ((i * 77) % 200) * 1.5 + 0.5);
    const before = server.app.statsd.stats().samples;
    for (const v of values) client.timing('xds.push.ms', v);
    await new Promise<void>((resolve) => client.close(() => resolve()));
    await until(() => server.app.statsd.stats().samples - before >= values.length);
    await server.app.statsd.flush();

    const timer = (await seriesOf(run.id))('xds.push.ms');
    expect(timer.stats.count).toBe(200);
    // Sorted: 0.5, 2, 3.5, ... (k-th smallest is (k-1) * 1.5 + 0.5). P99: rank 198 -> 296.
    expect(timer.stats.percentiles).toEqual([
      { p: 50, value: 99 * 1.5 + 0.5, exact: true, method: 'raw' },
      { p: 90, value: 179 * 1.5 + 0.5, exact: true, method: 'raw' },
      { p: 96, value: 191 * 1.5 + 0.5, exact: true, method: 'raw' },
      { p: 99, value: 197 * 1.5 + 0.5, exact: true, method: 'raw' },
      { p: 99.9, value: 199 * 1.5 + 0.5, exact: true, method: 'raw' },
    ]);
    expect(timer.stats.percentiles?.find((q) => q.p === 99)?.value).toBe(nearestRank(values, 99));
  });
});
