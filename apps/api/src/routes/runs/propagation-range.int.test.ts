// `?range=auto`: the API chooses the histogram's range as the run page drew it, so one request
// gives the page's tables and histogram. Checked against the two requests the page made
// before (the summary, then the histogram with the range the page worked out from it, by
// linearHistogramRange and the old log rule over the summary's CDF): the same answer.
import {
  decadeFloor,
  linearHistogramRange,
  type Propagation,
  propagation,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = '2026-02-01T10:00:00.000000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const change = { type: 'change', id: 'c1', kind: 'endpoint', target: 'e', action: 'add', at: T0 };
const obs = (proxy: string, ms: number) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  node: `n-${proxy}`,
  at: at(ms),
});

// A body of 200 proxies between 20 and 417 ms and a tail to 10 minutes (P99 >> 4 x P90),
// one skewed clock (-7 ms) so the log view starts at a decade of its own.
const LATENCIES = [
  -7,
  ...Array.from({ length: 200 }, (_, i) => 20 + ((i * 37) % 398)),
  ...[5_000, 60_000, 120_000, 600_000],
];

/** The histogram range the page asked for after reading the summary (the old two requests). */
function pageRange(summary: Propagation, scale: 'linear' | 'log', withinMs: number) {
  if (scale === 'linear') return linearHistogramRange(summary.percentiles, withinMs);
  if (summary.minMs === null || summary.minMs > 0) return {};
  const positive = summary.cdf.find((c) => c.ms > 0);
  return positive ? { fromMs: decadeFloor(positive.ms) } : {};
}

const query = (q: Record<string, string | number | undefined>) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');

describe.each(backends)('propagation ?range=auto on $name', (backend) => {
  const server = useServer(backend);

  async function read(runId: string, q: Record<string, string | number | undefined>) {
    const res = await server.json(`/runs/${runId}/changes/c1/propagation?${query(q)}`);
    expect(res.status).toBe(200);
    return propagation.parse(res.body);
  }

  it('answers in one request what the summary and the sized histogram request answered', async () => {
    const run = await createRun(server);
    await postEvents(
      server,
      run.id,
      ndjson([change, ...LATENCIES.map((ms, i) => obs(`p${i}`, ms))]),
    );
    for (const scale of ['linear', 'log'] as const) {
      for (const asked of [
        { withinMs: 1000 },
        { withinMs: 50, percentiles: '50,90,99' },
        { withinMs: 100_000, percentiles: '50,95' },
      ]) {
        const base = { bins: 60, ...asked };
        const summary = await read(run.id, base);
        const range = pageRange(summary, scale, asked.withinMs);
        expect(range, `${scale} ${JSON.stringify(asked)}`).not.toBeNull();
        const two = await read(run.id, { ...base, scale, ...range });
        const one = await read(run.id, { ...base, scale, range: 'auto' });
        expect(two.histogramRange).toBe(range && 'fromMs' in range ? 'asked' : 'data');
        expect(one.histogramRange).toBe('auto');
        const { histogramRange: _a, ...oneRest } = one;
        const { histogramRange: _b, ...twoRest } = two;
        expect(oneRest, `${scale} ${JSON.stringify(asked)}`).toEqual(twoRest);
      }
    }
    // The linear view stops at the body (the tail counted beyond) and reaches withinMs.
    const linear = await read(run.id, { range: 'auto', withinMs: 1000 });
    expect(linear.histogram.at(-1)?.toMs).toBe(1000);
    expect(linear.overflow).toBe(4);
    // The log view starts at the decade of the smallest positive latency (20 ms -> 10 ms).
    const log = await read(run.id, { range: 'auto', scale: 'log' });
    expect(log.histogram[0]?.fromMs).toBe(10);
    expect(log.underflow).toBe(1);
    // Given, fromMs and toMs win over range=auto.
    const given = await read(run.id, { range: 'auto', fromMs: 0, toMs: 200, bins: 2 });
    expect(given.histogramRange).toBe('asked');
    expect(given.histogram.map((b) => b.toMs)).toEqual([100, 200]);
  });

  it('says so when there is nothing to draw: no applications, or every one before the change', async () => {
    const run = await createRun(server);
    await postEvents(server, run.id, ndjson([change, obs('a', -30), obs('b', -10)]));
    const none = await read(run.id, { range: 'auto' });
    expect(none).toMatchObject({ count: 2, histogramRange: 'none', histogram: [], underflow: 0 });
    expect(none.overflow).toBe(0);
    // The data range still draws them.
    expect((await read(run.id, {})).histogram.length).toBeGreaterThan(0);

    const empty = await createRun(server);
    await postEvents(server, empty.id, ndjson([change]));
    expect(await read(empty.id, { range: 'auto' })).toMatchObject({
      count: 0,
      histogramRange: 'none',
      histogram: [],
    });
  });
});
