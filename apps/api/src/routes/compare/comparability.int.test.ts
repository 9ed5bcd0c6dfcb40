// Not comparable, through the public API: runs and their load results posted as a runner
// posts them, then the compare page's check, a report's, and a gate's verdict.
import {
  apiError,
  comparability,
  createdReport,
  finishedRun,
  project,
  report,
  run,
  significanceAnswer,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  backends,
  createRun,
  jsonBody,
  ndjson,
  type TestServer,
  useServer,
} from '../../test/harness.ts';
import { ADMIN } from '../../test/medium.ts';
import { queriesDuring } from '../../test/query-count.ts';

/** Istio's perf CSV (istio/tools fortio.py --csv columns): the target rate is in the label. */
const istioCsv = (achievedQps: number, clientCpuMaxMilli: number) =>
  [
    'StartTime,ActualDuration,Labels,NumThreads,ActualQPS,p50,p90,p99,cpu_mili_max_istio_proxy_fortioclient',
    `2026-02-01T10:00:00Z,240,0377ba4f_qps_1000_c_64_1024_v2-nullvm_both,64,${achievedQps},1046,1424,2682,${clientCpuMaxMilli}`,
  ].join('\n');

/**
 * A Fortio result of 100 requests that all took 10 ms: its one bucket is [10 ms, 10 ms], so
 * a percentile from it is exact; with `p99Seconds`, Fortio's own (interpolated) P99 is stated.
 */
const fortioJson = (p99Seconds?: number) =>
  JSON.stringify({
    Labels: 'both',
    RequestedQPS: '1000',
    ActualQPS: 1000,
    NumThreads: 64,
    DurationHistogram: {
      Count: 100,
      Min: 0.01,
      Max: 0.01,
      Data: [{ Start: 0.01, End: 0.01, Percent: 100, Count: 100 }],
      ...(p99Seconds === undefined ? {} : { Percentiles: [{ Percentile: 99, Value: p99Seconds }] }),
    },
  });

const postResults = async (server: TestServer, runId: string, body: string, format: string) => {
  const r = await server.api(`/runs/${runId}/results?format=${format}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body,
  });
  expect(r.status).toBe(201);
};

describe.each(backends)('comparability on $name', (backend) => {
  const server = useServer(backend);
  const check = (ids: string[], same = '') =>
    server.json(`/compare/comparability?runs=${ids.join(',')}${same}`, {}, comparability);

  it('warns of a rate short of its target and a saturated generator, in either run', async () => {
    const base = await createRun(server, { mesh: { name: 'istio', version: '1.24.0' } });
    const here = await createRun(server, {
      mesh: { name: 'linkerd', version: '2.16.0' },
      labels: { 'generator.cores': '4' },
    });
    await postResults(server, base.id, istioCsv(1000, 1200), 'istio-csv');
    // 940 of 1,000 RPS: 6 % below; the client side peaked at 3.9 of its 4 cores (97.5 %).
    await postResults(server, here.id, istioCsv(940, 3900), 'istio-csv');
    const answer = await check([base.id, here.id]);
    expect(answer.status).toBe(200);
    const where = `in linkerd 2.16.0 (run ${here.id.slice(0, 8)})`;
    expect(answer.body).toEqual({
      runs: [base.id, here.id],
      comparable: false,
      warnings: [
        {
          kind: 'rps-shortfall',
          runIds: [here.id],
          reason: `achieved RPS below target by more than 5 % ${where}: 940 of 1,000 RPS (6 % below) at both, 64 connections, 1,000 RPS target`,
        },
        {
          kind: 'generator-saturated',
          runIds: [here.id],
          reason: `load generator saturated ${where}: client CPU peak 3.9 of 4 cores (97.5 %) at both, 64 connections, 1,000 RPS target`,
        },
      ],
    });
    // Like runs: comparable.
    const twin = await createRun(server);
    await postResults(server, twin.id, istioCsv(1000, 1200), 'istio-csv');
    expect((await check([base.id, twin.id])).body).toMatchObject({
      comparable: true,
      warnings: [],
    });
  });

  it('warns of percentiles exact in one run and estimated in the other, and of topology', async () => {
    const base = await createRun(server, { topology: { nodes: 3 } });
    const here = await createRun(server, { topology: { nodes: 4 } });
    await postResults(server, base.id, fortioJson(), 'fortio');
    await postResults(server, here.id, fortioJson(0.0104), 'fortio');
    const { body } = await check([base.id, here.id]);
    const b = `in consul 1.9.5 (run ${base.id.slice(0, 8)}, the baseline)`;
    const h = `in consul 1.9.5 (run ${here.id.slice(0, 8)})`;
    expect(body.warnings).toEqual([
      {
        kind: 'topology',
        runIds: [here.id, base.id],
        reason: `different topology: nodes 4 ${h}, 3 ${b}`,
      },
      {
        kind: 'percentile-exactness',
        runIds: [here.id, base.id],
        reason: `percentiles of different exactness: P99 at both, 64 connections, 1,000 RPS target is estimated (10.4 ms, reported, no bound known) ${h}, exact (10 ms, nearest rank over raw values) ${b}`,
      },
    ]);
    // The same warnings in a report of the two runs.
    const made = await server.json(
      '/reports',
      jsonBody({ runs: [base.id, here.id] }),
      createdReport,
    );
    const shown = await server.anonJson(`/reports/${made.body.slug}`, {}, report);
    expect(shown.body.comparability?.warnings).toEqual(body.warnings);
  });

  it('holds a pinned mesh version, and refuses a bad request', async () => {
    const base = await createRun(server, { mesh: { name: 'consul', version: '1.17.0' } });
    const here = await createRun(server, { mesh: { name: 'consul', version: '1.18.0' } });
    expect((await check([base.id, here.id])).body.comparable).toBe(true);
    const pinned = await check([base.id, here.id], '&same=mesh.version');
    expect(pinned.body.warnings).toEqual([
      {
        kind: 'mesh-version',
        runIds: [here.id, base.id],
        reason: `different mesh version, pinned by same:mesh.version: 1.18.0 in consul 1.18.0 (run ${here.id.slice(0, 8)}), 1.17.0 in consul 1.17.0 (run ${base.id.slice(0, 8)}, the baseline)`,
      },
    ]);
    const one = await server.json(`/compare/comparability?runs=${base.id}`, {}, apiError);
    expect(one.status).toBe(400);
    const missing = await server.json(
      `/compare/comparability?runs=${base.id},00000000-0000-4000-8000-000000000000`,
      {},
      apiError,
    );
    expect(missing.status).toBe(404);
  });

  it("answers a gate rule pinned with same:mesh.version as not comparable, and doesn't fail on it", async () => {
    const benchmark = `notcomp-${Date.now()}`;
    const p = await server.json(
      '/projects',
      jsonBody({ name: benchmark, visibility: 'public' }),
      project,
    );
    const T0 = Date.parse('2026-02-01T10:00:00Z');
    const newRun = async (version: string, scale: number, projectId = p.body.id) => {
      const r = await server.json(
        '/runs',
        jsonBody({
          project: projectId,
          benchmark,
          scenario: 's',
          mesh: { name: 'consul', version },
        }),
        run,
      );
      await server.api(`/runs/${r.body.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: ndjson([
          {
            type: 'change',
            id: 'c1',
            kind: 'endpoint',
            target: 'hey',
            action: 'delete',
            at: new Date(T0).toISOString(),
          },
          ...Array.from({ length: 50 }, (_, i) => ({
            type: 'observation',
            change: 'c1',
            proxy: `p${i}`,
            at: new Date(T0 + (i + 1) * 10 * scale).toISOString(),
          })),
        ]),
      });
      return r.body.id;
    };
    const finish = async (id: string) =>
      (
        await server.json(
          `/runs/${id}`,
          { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' },
          finishedRun,
        )
      ).body.gate;
    const base = await newRun('1.17.0', 1);
    await finish(base);
    const created = await server.json(
      `/projects/${p.body.id}/thresholds`,
      jsonBody({ benchmark, rule: 'p99>+10% same:mesh.version', baseline: base }),
    );
    expect(created.status).toBe(201);
    // Every proxy 20 % slower (P99 500 -> 600 ms): a regression on the same version...
    const same = await finish(await newRun('1.17.0', 1.2));
    expect(same?.verdicts[0]).toMatchObject({
      failed: true,
      significance: { verdict: 'regressed' },
    });
    // ...and not comparable on another one, which passes with its reason.
    const otherId = await newRun('1.18.0', 1.2);
    const other = await finish(otherId);
    expect(other?.passed).toBe(true);
    expect(other?.verdicts[0]?.significance).toMatchObject({
      verdict: 'not-comparable',
      reason:
        'different mesh version, pinned by same:mesh.version: 1.18.0 here, 1.17.0 in the baseline',
    });
    // What the CLI asks for a rule that pins it.
    const asked = await server.json(
      `/runs/${otherId}/significance?baseline=${base}&metric=p99&minEffectMs=50&same=mesh.version`,
      {},
      significanceAnswer,
    );
    expect(asked.body).toMatchObject({ verdict: 'not-comparable', metric: 'p99' });
    const unpinned = await server.json(
      `/runs/${otherId}/significance?baseline=${base}&metric=p99&minEffectMs=50`,
      {},
      significanceAnswer,
    );
    expect(unpinned.body.verdict).toBe('regressed');

    // A private project's run is no baseline for a reader who may not read it: the answer
    // would be its pooled percentiles.
    const hidden = await server.json(
      '/projects',
      jsonBody({ name: `${benchmark}-private`, visibility: 'private' }),
      project,
    );
    const secret = await newRun('1.17.0', 1, hidden.body.id);
    const path = `/runs/${otherId}/significance?baseline=${secret}&metric=p99&minEffectMs=50`;
    const anonymous = await server.anonJson(path, {}, apiError);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toMatch(/token/i);
    expect((await server.json(path, {}, significanceAnswer)).status).toBe(200);
  });

  it('reads four runs in the queries that two runs take', async () => {
    const ids: string[] = [];
    for (const [i, qps] of [1000, 940, 1000, 990].entries()) {
      const made = await createRun(server, { mesh: { name: 'istio', version: `1.2${i}.0` } });
      await postResults(server, made.id, istioCsv(qps, 1200), 'istio-csv');
      ids.push(made.id);
    }
    const { services } = server.app;
    const ask = (runs: string[]) => services.compareView.comparability(runs, [], ADMIN);
    const two = await queriesDuring(server, () => ask(ids.slice(0, 2)));
    const four = await queriesDuring(server, () => ask(ids));
    // The answers are those of the route, read one run at a time before.
    expect(four.value).toEqual((await check(ids)).body);
    expect(four.value.warnings.map((w) => w.kind)).toContain('rps-shortfall');
    // Read one run at a time (a lookup and a results read each), four runs took twice the
    // queries of two; the runs and their results are now read in one query each.
    const counts = `${two.n} queries for 2 runs, ${four.n} for 4`;
    expect(four.n, counts).toBeLessThanOrEqual(two.n);
    expect(four.n, counts).toBeLessThanOrEqual(5);
  });
});
