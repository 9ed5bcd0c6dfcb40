// The runs list as the web app reads it: filters by substring ignoring case, labels as k=v or
// k:v, versions in version order, and each run's headline (GET /runs/headlines).
import { readFileSync } from 'node:fs';
import { apiError, runHeadlines, runList } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = Date.UTC(2026, 1, 1, 10, 0, 0);
const at = (ms: number) => new Date(T0 + ms).toISOString();
const fixture = (path: string) =>
  readFileSync(new URL(`../../../../../fixtures/public/${path}`, import.meta.url), 'utf8');

describe.each(backends)('runs list on $name', (backend) => {
  const server = useServer(backend);
  const unique = () => `${process.pid}${Date.now()}${Math.floor(Math.random() * 1e6)}`;

  it('filters by substring, ignoring case, and searches likewise', async () => {
    const tag = unique();
    const istio = await createRun(server, {
      benchmark: `Bench-${tag}`,
      mesh: { name: `IstioAmbient${tag}`, version: '1.22.0' },
      platform: 'Kubernetes',
    });
    await createRun(server, { benchmark: `bench-${tag}`, mesh: { name: `linkerd${tag}` } });
    const ids = async (query: string) =>
      (await server.json(`/runs?${query}`, {}, runList)).body.runs.map((r) => r.id);
    expect(await ids(`mesh=ISTIOamb&benchmark=${tag}`)).toEqual([istio.id]);
    expect(await ids(`benchmark=BENCH-${tag}&platform=kube`)).toEqual([istio.id]);
    expect(await ids(`benchmark=${tag}&version=22`)).toEqual([istio.id]);
    expect((await ids(`benchmark=${tag}`)).length).toBe(2);
    expect(await ids(`q=ISTIOAMBIENT${tag}`)).toEqual([istio.id]);
    // LIKE's wildcards are searched for as themselves.
    expect(await ids(`benchmark=${tag}&mesh=%25`)).toEqual([]);
  });

  it('takes labels as k=v as the list shows them, or k:v, and refuses any other form', async () => {
    const benchmark = `labels-${unique()}`;
    const main = await createRun(server, {
      benchmark,
      labels: { branch: 'main', ci: 'https://ci.example/1' },
    });
    await createRun(server, { benchmark, labels: { branch: 'feature' } });
    const ids = async (query: string) =>
      (await server.json(`/runs?benchmark=${benchmark}&${query}`, {}, runList)).body.runs.map(
        (r) => r.id,
      );
    expect(await ids('label=branch%3Dmain')).toEqual([main.id]);
    expect(await ids('label=branch%3Amain')).toEqual([main.id]);
    // A value may hold ":" or "=": the key ends at the first of them.
    expect(await ids(`label=${encodeURIComponent('ci=https://ci.example/1')}`)).toEqual([main.id]);
    for (const bad of ['branch', 'branch=', '=main']) {
      const answer = await server.json(`/runs?label=${encodeURIComponent(bad)}`, {}, apiError);
      expect(answer.status).toBe(400);
      expect(answer.body.field).toBe('label');
      expect(answer.body.message).toContain('key=value');
    }
  });

  it('sorts by mesh, then version as a version (1.10.0 after 1.9.5), either way', async () => {
    const name = `sortmesh${unique()}`;
    for (const version of ['1.10.0', '1.9.5', undefined, 'v1.9.10', '1.2.0'])
      await createRun(server, { mesh: version ? { name, version } : { name } });
    const order = async (sort: string) =>
      (await server.json(`/runs?mesh=${name}&sort=${sort}`, {}, runList)).body.runs.map(
        (r) => r.mesh.version,
      );
    // By hand: numbers compared number by number; no version last.
    expect(await order('mesh')).toEqual(['1.2.0', '1.9.5', 'v1.9.10', '1.10.0', null]);
    expect(await order('-mesh')).toEqual([null, '1.10.0', 'v1.9.10', '1.9.5', '1.2.0']);
  });

  it("heads each run with its kind's number", async () => {
    // Propagation: 4 proxies expected, 3 applied at 100, 200 and 1,500 ms: P99 is the
    // observation at rank ceil(0.99 * 3) = 3, 1,500 ms; within 1 s: 2 of the 4 expected.
    const propagation = await createRun(server, { startedAt: at(0) });
    await postEvents(
      server,
      propagation.id,
      ndjson([
        {
          type: 'change',
          id: 'c1',
          kind: 'endpoint',
          target: 'hey',
          action: 'delete',
          at: at(0),
          expected: 4,
        },
        ...[100, 200, 1500].map((ms, i) => ({
          type: 'observation',
          change: 'c1',
          proxy: `p${i}`,
          node: `n${i}`,
          at: at(ms),
        })),
      ]),
    );
    // Scale-up: 3 nodes, joined at 10, 20 and 30 s after the start.
    const scaleUp = await createRun(server, { startedAt: at(0), topology: { nodes: 3 } });
    await postEvents(
      server,
      scaleUp.id,
      ndjson(
        [10_000, 20_000, 30_000].map((ms, k) => ({
          type: 'lifecycle',
          phase: 'joined',
          entity: `node-${k}`,
          at: at(ms),
        })),
      ),
    );
    // Half the nodes of another: not all joined.
    const partial = await createRun(server, { startedAt: at(0), topology: { nodes: 6 } });
    await postEvents(
      server,
      partial.id,
      ndjson([{ type: 'lifecycle', phase: 'joined', entity: 'node-0', at: at(5_000) }]),
    );
    // Data plane: istio-tools' benchmark.csv; its top rate is qps_3000 (6 rows), the slowest
    // P99 of those 4,237 us, on cadf887c_qps_3000_c_16_1024_v2-stats-nullvm_both (read with
    // Python's csv module from the file).
    const dataPlane = await createRun(server);
    const posted = await server.json(`/runs/${dataPlane.id}/results`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: fixture('istio-tools/benchmark.csv'),
    });
    expect(posted.status).toBe(201);
    const empty = await createRun(server);

    const ids = [propagation, scaleUp, partial, dataPlane, empty].map((r) => r.id);
    const { status, body } = await server.json(
      `/runs/headlines?ids=${ids.join(',')}`,
      {},
      runHeadlines,
    );
    expect(status).toBe(200);
    const of = (id: string) => body.find((h) => h.runId === id);
    expect(of(propagation.id)).toMatchObject({
      kind: 'propagation',
      changeId: 'c1',
      count: 3,
      p99: { p: 99, ms: 1500 },
      withinMs: 1000,
      withinFraction: 0.5,
      // The summary sentence's: 3 of 4 in 1.5 s, P50 the second of three.
      expected: 4,
      p50: { p: 50, ms: 200, exact: true },
      lastMs: 1500,
    });
    expect(of(scaleUp.id)).toEqual({
      runId: scaleUp.id,
      kind: 'scale-up',
      phase: 'joined',
      count: 3,
      total: 3,
      timeToAllMs: 30_000,
      // 3 in 30 s; one in each of the seconds 10, 20 and 30.
      meanPerS: 0.1,
      peakPerS: 1,
    });
    expect(of(partial.id)).toMatchObject({ count: 1, total: 6, timeToAllMs: null });
    expect(of(dataPlane.id)).toMatchObject({
      kind: 'data-plane',
      mode: 'both',
      connections: 16,
      rps: 3000,
      p99: { p: 99, ms: 4.237 },
      // Baseline rows of the same config, rate and connections exist at 3,000 RPS for
      // none_mtls (both P99 2,811 us, baseline 634) and v2-sd-full-nullvm (3,921 and 709 us):
      // the second adds more (Python's csv module on the file).
      overBaseline: {
        mode: 'both',
        connections: 16,
        rps: 3000,
        config: 'v2-sd-full-nullvm',
        p50: { ms: 2.745 },
        p99: { ms: 3.921 },
        baselineP50: { ms: 0.324 },
        baselineP99: { ms: 0.709 },
      },
      stages: null,
    });
    expect(of(empty.id)).toBeUndefined();

    const bad = await server.json('/runs/headlines?ids=nope', {}, apiError);
    expect(bad.status).toBe(400);
  });
});
