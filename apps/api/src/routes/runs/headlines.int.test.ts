// The numbers a user reads first, for runs with more than one source: a step sent by two load
// generators is headlined, kept in History and reported by its merged distribution (never by
// one generator's own P99), and a churn run (many changes) by its pooled distribution and its
// worst change, each labelled as such. Expected values are computed by hand in the comments.
import { history, type Report, runHeadlines } from '@meshbench/schema';
import { build, HistogramLogWriter } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import {
  backends,
  createRun,
  jsonBody,
  ndjson,
  postEvents,
  useServer,
} from '../../test/harness.ts';

const T0 = Date.UTC(2026, 2, 10, 9, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

/** An HdrHistogram interval log (hdr-histogram-js's own writer) of one 1 s interval. */
function hdrLog(values: [us: number, count: number][]): string {
  let text = '';
  const writer = new HistogramLogWriter((s) => {
    text += s;
  });
  writer.outputLogFormatVersion();
  writer.outputStartTime(T0);
  writer.baseTime = T0;
  writer.outputLegend();
  const h = build({ numberOfSignificantValueDigits: 3 });
  for (const [us, count] of values) h.recordValueWithCount(us, count);
  h.startTimeStampMsec = T0;
  h.endTimeStampMsec = T0 + 1000;
  writer.outputIntervalHistogram(h);
  return text;
}

describe.each(backends)('headlines of multi-source runs on $name', (backend) => {
  const server = useServer(backend);
  const finish = (id: string) =>
    server.api(`/runs/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });

  it('a step of two generators: headline, History and report read the merged distribution', async () => {
    const benchmark = `merged-headline-${Date.now()}`;
    const run = await createRun(server, { benchmark, startedAt: iso(T0) });
    // gen-a: 100 requests at 1 ms. gen-b: 98 at 2 ms and 2 at 100 ms, so its own P99 (rank
    // 99 of 100) is 100 ms. Merged, 200 requests: ranks 1-100 are 1 ms, 101-198 2 ms,
    // 199-200 100 ms; P99 is rank ceil(0.99 x 200) = 198: 2 ms; P50 rank 100: 1 ms. Below
    // 2,048 us HdrHistogram (3 digits) keeps every microsecond: both are exact to 1 us.
    const step = 'mode=both&connections=64&targetRps=200';
    for (const [generator, values] of [
      ['gen-a', [[1000, 100]]],
      [
        'gen-b',
        [
          [2000, 98],
          [100_000, 2],
        ],
      ],
    ] as const) {
      const posted = await server.api(`/runs/${run.id}/results?${step}&generator=${generator}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: hdrLog(values as unknown as [number, number][]),
      });
      expect(posted.status).toBe(201);
    }
    expect((await finish(run.id)).status).toBe(200);

    const headlines = await server.json(`/runs/headlines?ids=${run.id}`, {}, runHeadlines);
    const h = headlines.body[0];
    expect(h).toMatchObject({ kind: 'data-plane', mode: 'both', connections: 64, rps: 200 });
    if (h?.kind !== 'data-plane') throw new Error('not a data-plane headline');
    expect(h.p99?.ms).toBeCloseTo(2, 2);
    expect(h.p99?.method).toBe('hdr');
    expect(h.generators).toBe(2);

    const read = async (metric: string) =>
      (await server.json(`/history?benchmark=${benchmark}&metric=${metric}`, {}, history)).body;
    const p99 = await read('loadP99');
    expect(p99.loadPoint).toMatchObject({ mode: 'both', connections: 64, targetRps: 200 });
    expect(p99.points[0]?.value).toBeCloseTo(2, 2);
    expect((await read('loadP50')).points[0]?.value).toBeCloseTo(1, 2);

    const report = await server.json('/reports', jsonBody({ runs: [run.id] }));
    expect(report.status).toBe(201);
    const shared = (await server.json(`/reports/${(report.body as { slug: string }).slug}`))
      .body as Report;
    expect(shared.description).toMatch(/P99 2\.0 ms at 200 RPS, merged over 2 generators/);
  });

  it('a churn run: headline, History and report say pooled over N changes, and the worst change', async () => {
    const benchmark = `pooled-headline-${Date.now()}`;
    const run = await createRun(server, { benchmark, startedAt: iso(T0) });
    // Three changes a minute apart, 100 proxies each. c1: i x 10 ms (10 ... 1,000 ms);
    // c2: 1,000 + i x 10 ms (1,010 ... 2,000); c3: i ms (1 ... 100).
    // Per change P99 (rank 99 of 100): c1 990 ms, c2 1,990 ms (the worst), c3 99 ms.
    // Pooled, 300 values: c2 holds ranks 201-300, so P99 (rank 297) is c2's 97th: 1,970 ms.
    // Within 1 s: c1's 100 and c3's 100, 200 of 300.
    const latency = {
      c1: (i: number) => i * 10,
      c2: (i: number) => 1000 + i * 10,
      c3: (i: number) => i,
    };
    const events: unknown[] = [];
    Object.entries(latency).forEach(([id, ms], k) => {
      const at = T0 + k * 60_000;
      events.push({
        type: 'change',
        id,
        kind: 'endpoint',
        target: 'web',
        action: 'add',
        at: iso(at),
      });
      for (let i = 1; i <= 100; i++)
        events.push({ type: 'observation', change: id, proxy: `p${i}`, at: iso(at + ms(i)) });
    });
    expect((await postEvents(server, run.id, ndjson(events))).status).toBe(200);
    expect((await finish(run.id)).status).toBe(200);

    const headlines = await server.json(`/runs/headlines?ids=${run.id}`, {}, runHeadlines);
    const h = headlines.body[0];
    if (h?.kind !== 'propagation') throw new Error('not a propagation headline');
    expect(h).toMatchObject({ summary: 'pooled', changes: 3, count: 300, changeId: null });
    expect(h.p99?.ms).toBe(1970);
    expect(h.withinFraction).toBeCloseTo(2 / 3, 10);
    expect(h.worst).toEqual({ changeId: 'c2', p99Ms: 1990 });

    const p99 = (await server.json(`/history?benchmark=${benchmark}&metric=p99`, {}, history)).body;
    expect(p99.points[0]).toMatchObject({ value: 1970, pooledChanges: 3 });
    const within = (
      await server.json(`/history?benchmark=${benchmark}&metric=within1s`, {}, history)
    ).body;
    expect(within.points[0]?.value).toBeCloseTo(200 / 3, 10);

    const report = await server.json('/reports', jsonBody({ runs: [run.id] }));
    const shared = (await server.json(`/reports/${(report.body as { slug: string }).slug}`))
      .body as Report;
    expect(shared.description).toContain('P99 2.0 s pooled over 3 changes');
    expect(shared.description).toContain('worst change c2: P99 2.0 s');
  });

  it('answers in the order the runs are named, whatever order the database keeps them in', async () => {
    const ids: string[] = [];
    for (const ms of [10, 20, 30]) {
      const run = await createRun(server, { startedAt: iso(T0) });
      const lines = [
        { type: 'change', id: 'c1', kind: 'endpoint', target: 'web', action: 'add', at: iso(T0) },
        { type: 'observation', change: 'c1', proxy: 'p1', at: iso(T0 + ms) },
      ];
      expect((await postEvents(server, run.id, ndjson(lines))).status).toBe(200);
      ids.push(run.id);
    }
    // Finishing the first run updates its row: Postgres then keeps it after the others.
    expect((await finish(ids[0] as string)).status).toBe(200);
    for (const order of [[...ids].reverse(), [ids[1], ids[0], ids[2]] as string[], ids]) {
      const answer = await server.json(`/runs/headlines?ids=${order.join(',')}`, {}, runHeadlines);
      expect(answer.body.map((h) => h.runId)).toEqual(order);
    }
  });
});
