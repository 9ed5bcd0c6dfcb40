// The runs list's headlines read in a fixed number of queries: a page of runs of every kind
// (one change, a churn of several, scale-up, data plane with a baseline, stages, a step of two
// generators, none) answers, byte for byte, what each run's own reads (the services its pages
// call, one run at a time) answer, and twice as many runs of the same kinds cost the same
// number of queries.
import { type RunHeadline, runHeadlines } from '@meshbench/schema';
import { build, HistogramLogWriter } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { lifecycleRepository } from '../../repositories/lifecycle.repository.ts';
import { runsRepository } from '../../repositories/runs.repository.ts';
import { headlinesService } from '../../services/headlines.service.ts';
import {
  backends,
  createRun,
  ndjson,
  postEvents,
  type TestServer,
  useServer,
} from '../../test/harness.ts';
import { ADMIN } from '../../test/medium.ts';
import { queriesDuring } from '../../test/query-count.ts';

const T0 = Date.UTC(2026, 3, 2, 9, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

/** An HdrHistogram interval log (hdr-histogram-js's own writer), one interval per second. */
function hdrLog(intervals: [us: number, count: number][][]): string {
  let text = '';
  const writer = new HistogramLogWriter((s) => {
    text += s;
  });
  writer.outputLogFormatVersion();
  writer.outputStartTime(T0);
  writer.baseTime = T0;
  writer.outputLegend();
  intervals.forEach((values, i) => {
    const h = build({ numberOfSignificantValueDigits: 3 });
    for (const [us, count] of values) h.recordValueWithCount(us, count);
    h.startTimeStampMsec = T0 + i * 1000;
    h.endTimeStampMsec = T0 + (i + 1) * 1000;
    writer.outputIntervalHistogram(h);
  });
  return text;
}

/** Runs of every kind a headline has, through the public API; their ids. */
async function runsOfEveryKind(server: TestServer, seed: number): Promise<string[]> {
  const ids: string[] = [];
  const finish = async (id: string) => {
    const r = await server.api(`/runs/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(200);
  };
  const events = async (id: string, lines: unknown[]) =>
    expect((await postEvents(server, id, ndjson(lines))).status).toBe(200);
  const results = async (id: string, query: string, body: string) => {
    const r = await server.api(`/runs/${id}/results?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body,
    });
    expect(r.status).toBe(201);
  };
  const run = async (over: Record<string, unknown> = {}) => {
    const made = await createRun(server, {
      benchmark: 'headlines-batched',
      startedAt: iso(T0),
      ...over,
    });
    ids.push(made.id);
    return made.id;
  };

  // One change, 60 expected, 50 seen: i x (7 + seed) ms, so some past 1 s.
  const single = await run();
  const change = { type: 'change', kind: 'endpoint', target: 'hey', action: 'delete' };
  await events(single, [
    { ...change, id: 'c1', at: iso(T0), expected: 60 },
    ...Array.from({ length: 50 }, (_, i) => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      node: `n${i % 7}`,
      at: iso(T0 + (i + 1) * (7 + seed) * 3),
    })),
  ]);
  await finish(single);

  // A churn: three changes a minute apart, none declaring how many proxies.
  const churn = await run();
  const churnLines: unknown[] = [];
  for (let c = 0; c < 3; c++) {
    const at = T0 + c * 60_000;
    churnLines.push({ ...change, id: `k${c}`, at: iso(at) });
    for (let i = 1; i <= 30; i++)
      churnLines.push({
        type: 'observation',
        change: `k${c}`,
        proxy: `p${i}`,
        at: iso(at + i * (c + 1 + seed) * 11),
      });
  }
  await events(churn, churnLines);
  await finish(churn);

  // Scale-up: 8 nodes declared, 8 joined over a few seconds.
  const scaleUp = await run({ topology: { nodes: 8 } });
  await events(
    scaleUp,
    Array.from({ length: 8 }, (_, i) => ({
      type: 'lifecycle',
      phase: 'joined',
      entity: `node-${i}`,
      node: `node-${i}`,
      at: iso(T0 + 400 * i * (1 + seed)),
    })),
  );
  await finish(scaleUp);

  // Data plane with a baseline at the same step, each one interval (so stages too).
  const dataPlane = await run();
  await results(dataPlane, 'mode=baseline&connections=16&targetRps=1000', hdrLog([[[800, 100]]]));
  await results(
    dataPlane,
    'mode=both&connections=16&targetRps=1000',
    hdrLog([
      [
        [1500, 98],
        [9000 + seed * 1000, 2],
      ],
    ]),
  );
  await finish(dataPlane);

  // Stages: two rates, several intervals each.
  const stages = await run();
  await results(
    stages,
    'mode=both&connections=64&targetRps=500',
    hdrLog([[[1000, 500]], [[1100, 490]], [[5000 + seed, 400]]]),
  );
  await results(
    stages,
    'mode=both&connections=64&targetRps=2000',
    hdrLog([[[2000, 1990]], [[2100, 1900]]]),
  );
  await finish(stages);

  // A step sent by two generators: read by its merged distribution.
  const generators = await run();
  for (const [generator, values] of [
    ['gen-a', [[1000, 100]]],
    [
      'gen-b',
      [
        [2000, 98],
        [100_000 + seed, 2],
      ],
    ],
  ] as const)
    await results(
      generators,
      `mode=both&connections=64&targetRps=200&generator=${generator}`,
      hdrLog([values as unknown as [number, number][]]),
    );
  await finish(generators);

  // A run with nothing to headline.
  await run();
  return ids;
}

describe.each(backends)('headlines of a page of runs on $name', (backend) => {
  const server = useServer(backend);

  /** The headlines as each run's own reads answer them, one run at a time. */
  const perRun = () => {
    const { services, database } = server.app;
    return headlinesService({
      runs: runsRepository(database.db),
      readsFor: () => ({
        propagation: services.propagation,
        churn: services.churn,
        results: services.results,
        lifecycle: lifecycleRepository(database.db),
      }),
    });
  };

  it('answers what each run answers alone, byte for byte, for runs of every kind', async () => {
    const ids = await runsOfEveryKind(server, 0);
    const { services } = server.app;
    const batched = await services.headlines.headlines(ids, ADMIN);
    const alone = await perRun().headlines(ids, ADMIN);
    expect(batched.map((h) => h.kind).sort()).toEqual([
      'data-plane',
      'data-plane',
      'data-plane',
      'propagation',
      'propagation',
      'scale-up',
    ]);
    const byRun = (hs: RunHeadline[]) =>
      new Map(hs.map((h) => [h.runId, JSON.stringify(h)] as const));
    expect(byRun(batched)).toEqual(byRun(alone));
    // Every kind is there: a pooled churn, stages, merged generators, a baseline.
    const text = [...byRun(batched).values()].join('\n');
    expect(text).toContain('"summary":"pooled"');
    expect(text).toContain('"summary":"change"');
    expect(text).toContain('"generators":2');
    expect(text).toMatch(/"overBaseline":\{/);
    expect(text).toMatch(/"stages":\{"targetRps":2000/);

    // Through HTTP: the page's body is each run's own page of one, in the page's order.
    const page = await server.json(`/runs/headlines?ids=${ids.join(',')}`, {}, runHeadlines);
    for (const h of page.body) {
      const one = await server.json(`/runs/headlines?ids=${h.runId}`, {}, runHeadlines);
      expect(JSON.stringify(one.body)).toBe(JSON.stringify([h]));
      expect(h).toEqual(JSON.parse(byRun(alone).get(h.runId) as string));
    }
  });

  it('reads a page of runs in a number of queries that does not grow with the page', async () => {
    const first = await runsOfEveryKind(server, 1);
    const second = await runsOfEveryKind(server, 2);
    const { services } = server.app;
    const one = await queriesDuring(server, () => services.headlines.headlines(first, ADMIN));
    const two = await queriesDuring(server, () =>
      services.headlines.headlines([...first, ...second], ADMIN),
    );
    expect(one.value).toHaveLength(6);
    expect(two.value).toHaveLength(12);
    // Each run read alone (main before this change): 44 queries for the first page, 87 for both.
    expect(two.n, `${one.n} queries for 6 runs, ${two.n} for 12`).toBe(one.n);
    expect(one.n).toBeLessThanOrEqual(16);
  });

  it("reads a stages run's points and histograms once for its headline (its list and its stages)", async () => {
    const ids = await runsOfEveryKind(server, 3);
    // The stages run (the fifth made): a list of its points, then its stages over them.
    const stagesRun = ids[4] as string;
    const { services } = server.app;
    const read = await queriesDuring(server, () =>
      services.headlines.headlines([stagesRun], ADMIN),
    );
    expect(read.value).toHaveLength(1);
    expect(read.value[0]?.kind === 'data-plane' && read.value[0].stages?.targetRps).toBe(2000);
    const histogramReads = read.texts.filter((t) =>
      /select[^;]*"hdr"[^;]*from "load_results"/is.test(t),
    );
    // main before this change: 2 (the list's, then the stages').
    expect(histogramReads, read.texts.join('\n')).toHaveLength(1);
  });
});
