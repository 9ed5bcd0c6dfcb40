// The compare page's significance, through the public API: runs posted as probes post them,
// then each run's percentile differences from the baseline and their bootstrap intervals.
import { apiError, compareSignificance } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, useServer } from '../../test/harness.ts';

const T0 = Date.parse('2026-02-01T10:00:00Z');
/** A change `id` and one observation per latency (whole ms). */
const events = (id: string, latencies: number[]) =>
  ndjson([
    {
      type: 'change',
      id,
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: new Date(T0).toISOString(),
    },
    ...latencies.map((ms, i) => ({
      type: 'observation',
      change: id,
      proxy: `p${i}`,
      at: new Date(T0 + ms).toISOString(),
    })),
  ]);

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe.each(backends)('compare significance on $name', (backend) => {
  const server = useServer(backend);
  const withEvents = async (changeId: string, latencies: number[]) => {
    const r = await createRun(server);
    const posted = await server.api(`/runs/${r.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: events(changeId, latencies),
    });
    expect(posted.status).toBe(200);
    return r.id;
  };

  it('colours a shift the interval excludes 0 of, and not one it holds', async () => {
    // 200 proxies each: 1-200 ms; the same shifted by 100 ms; the same with one more ms on
    // the slowest proxy (a P50 difference of 0, a P99.9 one of a single observation).
    const base = await withEvents('c1', range(1, 200));
    const shifted = await withEvents('c9', range(101, 200));
    const twin = await withEvents('c1', [...range(1, 199), 201]);
    const q = `runs=${base},${shifted},${twin}&changes=c1,c9,c1&percentiles=50,99.9`;
    const { status, body } = await server.json(
      `/compare/significance?${q}`,
      {},
      compareSignificance,
    );
    expect(status).toBe(200);
    expect(body.level).toBe(0.95);
    expect(body.runs.map((r) => [r.runId, r.changeId, r.observations])).toEqual([
      [base, 'c1', 200],
      [shifted, 'c9', 200],
      [twin, 'c1', 200],
    ]);
    expect(body.runs[0]?.differences).toEqual([]);
    const [p50, p999] = body.runs[1]?.differences ?? [];
    expect(p50).toMatchObject({ p: 50, verdict: 'regressed', deltaMs: 100 });
    expect(p50?.lowMs).toBeGreaterThan(0);
    expect(p50?.highMs).toBeGreaterThanOrEqual(100);
    expect(p999).toMatchObject({ p: 99.9, verdict: 'regressed', deltaMs: 100 });
    const [same50, tail] = body.runs[2]?.differences ?? [];
    expect(same50).toMatchObject({ p: 50, verdict: 'no-significant-change', deltaMs: 0 });
    // P99.9 of 200 is the slowest: +1 ms, but its interval reaches down past 0.
    expect(tail).toMatchObject({ p: 99.9, verdict: 'no-significant-change', deltaMs: 1 });
    expect(tail?.lowMs).toBeLessThan(0);
  });

  it('says not-comparable for a run without the change, and refuses a bad request', async () => {
    const base = await withEvents('c1', range(1, 50));
    const other = await withEvents('c1', range(1, 50));
    const none = await server.json(
      `/compare/significance?runs=${base},${other}&changes=c1,&percentiles=99`,
      {},
      compareSignificance,
    );
    expect(none.body.runs[1]?.differences).toEqual([
      {
        p: 99,
        verdict: 'not-comparable',
        reason: 'no raw latencies in this run',
        deltaMs: null,
        lowMs: null,
        highMs: null,
      },
    ]);
    const count = await server.json(
      `/compare/significance?runs=${base},${other}&changes=c1`,
      {},
      apiError,
    );
    expect(count.status).toBe(400);
    expect(count.body.message).toMatch(/one change id per run \(2\)/);
    const missing = await server.json(
      `/compare/significance?runs=${base},${other}&changes=c1,nope`,
      {},
      apiError,
    );
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/change "nope"/);
    const badP = await server.json(
      `/compare/significance?runs=${base},${other}&changes=c1,c1&percentiles=0`,
      {},
      apiError,
    );
    expect(badP.status).toBe(400);
  });
});
