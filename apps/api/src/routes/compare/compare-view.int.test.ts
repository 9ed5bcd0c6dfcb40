// GET /compare, the compare page's one read: its parts equal, byte for byte, what each run's
// own routes answer (the run, its changes, each paired change's summary with node clocks, the
// headlines, the comparability, whether results and a timeline are there), and it costs the
// same number of queries for four runs as for two.
import {
  changeList,
  comparability,
  compareView,
  propagation,
  run,
  runHeadlines,
  timeline,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
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
const SUMMARY = 'percentiles=50,90,99&withinMs=1000&bins=60&scale=log';

/** Fortio's JSON: 100 requests of 10 ms at 1,000 RPS. */
const fortioJson = JSON.stringify({
  Labels: 'both',
  RequestedQPS: '1000',
  ActualQPS: 1000,
  NumThreads: 64,
  DurationHistogram: {
    Count: 100,
    Min: 0.01,
    Max: 0.01,
    Data: [{ Start: 0.01, End: 0.01, Percent: 100, Count: 100 }],
  },
});

/** An OTLP JSON gauge of the run (a series of its own, so a timeline). */
const gauge = (runId: string) =>
  JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeMetrics: [
          {
            scope: { name: 'compare-view' },
            metrics: [
              {
                name: 'cp.cpu',
                gauge: { dataPoints: [{ timeUnixNano: String(T0 * 1e6), asDouble: 0.5 }] },
              },
            ],
          },
        ],
      },
    ],
  });

/**
 * Four runs of change c1, each of another shape: node clocks (a corrected brief), load
 * results, lifecycle phases, a series of its own. Their ids, in that order.
 */
async function fourRuns(server: TestServer, seed: number): Promise<string[]> {
  const ids: string[] = [];
  const change = { type: 'change', kind: 'endpoint', target: 'hey', action: 'delete' };
  for (let k = 0; k < 4; k++) {
    const made = await createRun(server, {
      benchmark: 'compare-view',
      startedAt: iso(T0),
      topology: { nodes: 3 },
    });
    const lines: unknown[] = [
      { ...change, id: 'c1', at: iso(T0), expected: 40 },
      ...Array.from({ length: 30 }, (_, i) => ({
        type: 'observation',
        change: 'c1',
        proxy: `p${i}`,
        node: `n${i % 3}`,
        at: iso(T0 + (i + 1) * (k + 2 + seed) * 5),
      })),
    ];
    if (k === 0)
      lines.push(
        { type: 'clock', node: 'n0', at: iso(T0), offsetMs: 3, errorMs: 0.5 },
        { type: 'clock', node: 'n1', at: iso(T0), offsetMs: -2, errorMs: 1 },
      );
    if (k === 2)
      for (let n = 0; n < 3; n++)
        lines.push({
          type: 'lifecycle',
          phase: 'joined',
          entity: `n${n}`,
          node: `n${n}`,
          at: iso(T0 + 100 * n),
        });
    expect((await postEvents(server, made.id, ndjson(lines))).status).toBe(200);
    if (k === 1) {
      const r = await server.api(`/runs/${made.id}/results?format=fortio`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: fortioJson,
      });
      expect(r.status).toBe(201);
    }
    if (k === 3) {
      const r = await fetch(`${server.url}/v1/metrics`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: gauge(made.id),
      });
      expect(r.status).toBe(200);
    }
    const finished = await server.api(`/runs/${made.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(finished.status).toBe(200);
    ids.push(made.id);
  }
  return ids;
}

describe.each(backends)('the compare read on $name', (backend) => {
  const server = useServer(backend);

  it("answers what each run's own routes answer, byte for byte", async () => {
    const ids = await fourRuns(server, 0);
    // The corrected summary of the run with clocks is in before anything is compared.
    const corrected = await server.json(
      `/runs/${ids[0]}/changes/c1/propagation?clock=corrected`,
      {},
      propagation,
    );
    expect(corrected.status).toBe(200);
    const { status, body } = await server.json(
      `/compare?runs=${ids.join(',')}&${SUMMARY}`,
      {},
      compareView,
    );
    expect(status).toBe(200);

    expect(body.runs.map((r) => r.id)).toEqual(ids);
    for (const [i, id] of ids.entries()) {
      const own = await server.json(`/runs/${id}`, {}, run);
      const { gated: _gated, finishing: _finishing, ...listed } = own.body;
      expect(JSON.stringify(body.runs[i])).toBe(JSON.stringify(listed));
      const changes = await server.json(`/runs/${id}/changes`, {}, changeList);
      expect(JSON.stringify(body.changes[i])).toBe(JSON.stringify(changes.body));
      const summary = await server.json(
        `/runs/${id}/changes/c1/propagation?${SUMMARY}`,
        {},
        propagation,
      );
      const paired = body.summaries.find((s) => s.runId === id);
      expect(paired?.changeId).toBe('c1');
      expect(JSON.stringify(paired?.summary)).toBe(JSON.stringify(summary.body));
    }
    expect(body.summaries).toHaveLength(4);
    // The clocks of the first run are read as its own route reads them.
    expect(body.summaries[0]?.summary?.clock?.available).toBe(true);
    expect(body.summaries[0]?.summary?.clock?.corrected).not.toBeNull();

    const headlines = await server.json(`/runs/headlines?ids=${ids.join(',')}`, {}, runHeadlines);
    expect(JSON.stringify(body.headlines)).toBe(JSON.stringify(headlines.body));
    const check = await server.json(
      `/compare/comparability?runs=${ids.join(',')}`,
      {},
      comparability,
    );
    expect(JSON.stringify(body.comparability)).toBe(JSON.stringify(check.body));

    // What each run has: the same as its results and timeline say.
    const has = [];
    for (const id of ids) {
      const results = await server.json(`/runs/${id}/results`);
      const line = await server.json(`/runs/${id}/timeline`, {}, timeline);
      has.push({
        loadResults: (results.body as unknown[]).length > 0,
        timeline: line.body.phases.length + line.body.series.length > 0,
      });
    }
    expect(has).toEqual([
      { loadResults: false, timeline: false },
      { loadResults: true, timeline: false },
      { loadResults: false, timeline: true },
      { loadResults: false, timeline: true },
    ]);
    expect(body.has).toEqual(has);
  });

  it('pairs changes as the page does and names a run it cannot find', async () => {
    const [a, b] = await fourRuns(server, 1);
    const other = await createRun(server, { benchmark: 'compare-view', startedAt: iso(T0) });
    const change = { type: 'change', kind: 'endpoint', target: 'hey', action: 'delete' };
    const lines = [
      { ...change, id: 'x9', at: iso(T0) },
      { type: 'observation', change: 'x9', proxy: 'p1', at: iso(T0 + 40) },
    ];
    expect((await postEvents(server, other.id, ndjson(lines))).status).toBe(200);
    // No change id in common: each run's first, by position.
    const byPosition = await server.json(
      `/compare?runs=${a},${other.slug}&${SUMMARY}`,
      {},
      compareView,
    );
    expect(byPosition.status).toBe(200);
    expect(byPosition.body.runs.map((r) => r.id)).toEqual([a, other.id]);
    expect(byPosition.body.summaries.map((s) => [s.runId, s.changeId])).toEqual([
      [a, 'c1'],
      [other.id, 'x9'],
    ]);
    const missing = await server.json(`/compare?runs=${b},00000000-0000-4000-8000-000000000000`);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).toContain('00000000-0000-4000-8000-000000000000');
    const one = await server.json(`/compare?runs=${b}`);
    expect(one.status).toBe(400);
  });

  it('reads four runs in a bound of queries that two runs fit in too', async () => {
    const first = await runsPair(server, 2);
    const second = await runsPair(server, 3);
    const { services } = server.app;
    const ask = (runs: string[]) =>
      services.compareView.view(
        { runs, percentiles: [50, 99], withinMs: 1000, bins: 60, scale: 'log' },
        ADMIN,
      );
    // Warm: the corrections this process computes after the writes are done.
    await ask([...first, ...second]);
    const two = await queriesDuring(server, () => ask(first));
    const four = await queriesDuring(server, () => ask([...first, ...second]));
    expect(two.value.summaries).toHaveLength(2);
    expect(four.value.summaries).toHaveLength(4);
    // A bound that does not grow with the runs (read one run at a time, as the page's requests
    // before this read were, four runs cost about twice two). Not equality: on Postgres's
    // several connections, steps of runs of other shapes may meet in one batch or in two.
    const counts = `${two.n} queries for 2 runs, ${four.n} for 4`;
    expect(two.n, counts).toBeLessThanOrEqual(20);
    expect(four.n, counts).toBeLessThanOrEqual(20);
  });
});

/** Two of fourRuns' shapes (clocks and load results; phases and a series), as two pairs. */
async function runsPair(server: TestServer, seed: number): Promise<string[]> {
  const ids = await fourRuns(server, seed);
  return [ids[0] as string, ids[2] as string];
}
