import { apiError, runPropagation } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = Date.parse('2026-02-01T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

// Four changes 5 s apart; latencies (ms) of each proxy's first application:
//   c1 (expected 5): 100, 250, 400, 900, 3000
//   c2 (expected 4): 50, 60, 2000 (+ a later repeat of the 50 ms proxy at 70 ms)
//   c3 (no expected): -2 (a clock behind), 10, 20, 1500
//   c4 (expected 2): nothing arrived
const changes = [
  { id: 'c1', atMs: 0, expected: 5, latencies: [900, 100, 3000, 250, 400] },
  { id: 'c2', atMs: 5000, expected: 4, latencies: [2000, 50, 60] },
  { id: 'c3', atMs: 10_000, expected: undefined, latencies: [1500, -2, 20, 10] },
  { id: 'c4', atMs: 15_000, expected: 2, latencies: [] },
];
const events = changes.flatMap((c) => [
  {
    type: 'change',
    id: c.id,
    kind: 'endpoint',
    target: `svc-${c.id}`,
    action: 'add',
    at: iso(c.atMs),
    ...(c.expected === undefined ? {} : { expected: c.expected }),
  },
  ...c.latencies.map((ms, i) => ({
    type: 'observation',
    change: c.id,
    proxy: `p${i}`,
    node: `n-${i % 2}`,
    at: iso(c.atMs + ms),
  })),
]);
// The repeat: c2's p1 (first at 50 ms) reports again at 70 ms; it must not count twice.
events.push({ type: 'observation', change: 'c2', proxy: 'p1', node: 'n-1', at: iso(5070) });

const raw = (p: number, ms: number) => ({ p, ms, exact: true, method: 'raw' });

describe.each(backends)('GET /runs/{id}/propagation ($name)', (backend) => {
  const server = useServer(backend);

  async function churnRun() {
    const run = await createRun(server);
    const posted = await postEvents(server, run.id, ndjson(events));
    expect(posted.status).toBe(200);
    return run;
  }

  it('answers per-change rows, pooled and per-change P99 distributions, worked by hand', async () => {
    const run = await churnRun();
    const { status, body } = await server.json(
      `/runs/${run.id}/propagation?percentiles=50,99&withinMs=1000&bins=4`,
      undefined,
      runPropagation,
    );
    expect(status).toBe(200);
    expect(body.stage).toBe('applied');
    expect(body.withinMs).toBe(1000);
    // Per change, nearest rank ceil(p n / 100):
    //   c1 sorted 100 250 400 900 3000: P50 rank 3 = 400, P99 rank 5 = 3000; 4 of 5 <= 1 s
    //   c2 sorted 50 60 2000: P50 rank 2 = 60, P99 rank 3 = 2000; 2 of expected 4
    //   c3 sorted -2 10 20 1500: P50 rank 2 = 10, P99 rank 4 = 1500; 3 of its 4 (no expected)
    const rows = body.changes.map((c) => ({
      id: c.id,
      count: c.count,
      missing: c.missing,
      minMs: c.minMs,
      maxMs: c.maxMs,
      percentiles: c.percentiles,
      withinCount: c.withinCount,
      withinFraction: c.withinFraction,
    }));
    expect(rows).toEqual([
      {
        id: 'c1',
        count: 5,
        missing: 0,
        minMs: 100,
        maxMs: 3000,
        percentiles: [raw(50, 400), raw(99, 3000)],
        withinCount: 4,
        withinFraction: 4 / 5,
      },
      {
        id: 'c2',
        count: 3,
        missing: 1,
        minMs: 50,
        maxMs: 2000,
        percentiles: [raw(50, 60), raw(99, 2000)],
        withinCount: 2,
        withinFraction: 2 / 4,
      },
      {
        id: 'c3',
        count: 4,
        missing: null,
        minMs: -2,
        maxMs: 1500,
        percentiles: [raw(50, 10), raw(99, 1500)],
        withinCount: 3,
        withinFraction: 3 / 4,
      },
      {
        id: 'c4',
        count: 0,
        missing: 2,
        minMs: null,
        maxMs: null,
        percentiles: [],
        withinCount: 0,
        withinFraction: 0,
      },
    ]);
    expect(body.changes.map((c) => [c.at, c.expected, c.target])).toEqual([
      [iso(0).replace('Z', '000Z'), 5, 'svc-c1'],
      [iso(5000).replace('Z', '000Z'), 4, 'svc-c2'],
      [iso(10_000).replace('Z', '000Z'), null, 'svc-c3'],
      [iso(15_000).replace('Z', '000Z'), 2, 'svc-c4'],
    ]);

    // Pooled, 12 values: -2 10 20 50 60 100 250 400 900 1500 2000 3000.
    // P50 rank 6 = 100; P99 rank ceil(11.88) = 12 = 3000; 9 <= 1 s of 5 + 4 + 4 + 2 = 15.
    expect(body.pooled).toEqual({
      label: expect.stringContaining('pooled'),
      changes: 3,
      count: 12,
      expected: null, // c3 declares none
      minMs: -2,
      maxMs: 3000,
      // (100 + 250 + 400 + 900 + 3000) + (50 + 60 + 2000) + (-2 + 10 + 20 + 1500) = 8,288 / 12
      meanMs: 8288 / 12,
      percentiles: [raw(50, 100), raw(99, 3000)],
      withinCount: 9,
      withinFraction: 9 / 15,
    });

    // Per-change P99s 3000, 2000, 1500 -> sorted 1500 2000 3000: median rank 2 = 2000,
    // P90 rank ceil(2.7) = 3 = 3000. c4 has no P99 and is not counted.
    expect(body.perChangeP99).toEqual({
      label: expect.stringContaining('per-change P99s'),
      p: 99,
      count: 3,
      minMs: 1500,
      medianMs: 2000,
      p90Ms: 3000,
      maxMs: 3000,
      values: [
        { changeId: 'c1', ms: 3000 },
        { changeId: 'c2', ms: 2000 },
        { changeId: 'c3', ms: 1500 },
      ],
    });

    // Shared bins over -2..3000 ms, 4 of 750.5 ms: -2, 748.5, 1499, 2249.5, 3000.
    //   c1: 100 250 400 | 900 | - | 3000      c2: 50 60 | - | 2000 | -
    //   c3: -2 10 20 | - | 1500 | -           c4: nothing
    expect(body.heatmap).toEqual({
      label: expect.any(String),
      scale: 'linear',
      edgesMs: [-2, 748.5, 1499, 2249.5, 3000],
      rows: [
        { changeId: 'c1', counts: [3, 1, 0, 1] },
        { changeId: 'c2', counts: [2, 0, 1, 0] },
        { changeId: 'c3', counts: [3, 0, 1, 0] },
        { changeId: 'c4', counts: [0, 0, 0, 0] },
      ],
      maxCount: 3,
    });
  });

  it('takes the default percentiles (50, 99) and reads the run by its share slug', async () => {
    const run = await churnRun();
    const { status, body } = await server.json(
      `/runs/${run.slug}/propagation`,
      undefined,
      runPropagation,
    );
    expect(status).toBe(200);
    expect(body.pooled.percentiles.map((p) => p.p)).toEqual([50, 99]);
    expect(body.heatmap.edgesMs).toHaveLength(61); // 60 bins by default
    expect(body.heatmap.rows.map((r) => r.counts.reduce((s, c) => s + c, 0))).toEqual([5, 3, 4, 0]);
  });

  it('has rows without latencies for a stage nothing was observed at', async () => {
    const run = await churnRun();
    const { body } = await server.json(
      `/runs/${run.id}/propagation?stage=serving`,
      undefined,
      runPropagation,
    );
    expect(body.stage).toBe('serving');
    expect(body.changes.map((c) => c.count)).toEqual([0, 0, 0, 0]);
    expect(body.pooled.count).toBe(0);
    expect(body.pooled.percentiles).toEqual([]);
    expect(body.perChangeP99.count).toBe(0);
    expect(body.perChangeP99.medianMs).toBeNull();
    expect(body.heatmap.edgesMs).toEqual([]);
  });

  it('refuses bad queries naming the field, and unknown runs', async () => {
    const run = await churnRun();
    const bad = await server.json(
      `/runs/${run.id}/propagation?percentiles=50,abc`,
      undefined,
      apiError,
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/percentiles/);
    const bins = await server.json(`/runs/${run.id}/propagation?bins=0`, undefined, apiError);
    expect(bins.status).toBe(400);
    expect(JSON.stringify(bins.body)).toMatch(/bins/);
    const missing = await server.json(
      '/runs/00000000-0000-4000-8000-000000000000/propagation',
      undefined,
      apiError,
    );
    expect(missing.status).toBe(404);
  });
});
