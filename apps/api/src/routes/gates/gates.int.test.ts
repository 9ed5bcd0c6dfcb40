// Thresholds on a project, the verdict on each finished run, and the history of one number.
import {
  alert,
  createdToken,
  finishedRun,
  gateResult,
  history,
  project,
  run,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, jsonBody, ndjson, useServer } from '../../test/harness.ts';

const T0 = Date.parse('2026-02-01T10:00:00Z');
/** A change and one observation per latency (whole ms). */
const events = (latencies: number[]) =>
  ndjson([
    {
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: new Date(T0).toISOString(),
    },
    ...latencies.map((ms, i) => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      at: new Date(T0 + ms).toISOString(),
    })),
  ]);

describe.each(backends)('gates and history on $name', (backend) => {
  const server = useServer(backend);

  /** A finished run of 100 proxies (1-98 ms, then `p99` and `p99` + 1): its P99 is `p99`. */
  async function finishedRunAtP99(
    projectId: string,
    benchmark: string,
    p99: number,
    labels: Record<string, string> = {},
  ): Promise<string> {
    const r = await server.json(
      '/runs',
      jsonBody({ project: projectId, benchmark, scenario: 's', mesh: { name: 'consul' }, labels }),
      run,
    );
    await server.api(`/runs/${r.body.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: events([...Array.from({ length: 98 }, (_, i) => i + 1), p99, p99 + 1]),
    });
    await server.json(
      `/runs/${r.body.id}`,
      { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' },
      finishedRun,
    );
    return r.body.id;
  }

  it("holds a finished run to its project's thresholds: pass, fail, missing baseline, no data", async () => {
    const benchmark = `gate-${Date.now()}`;
    const p = await server.json(
      '/projects',
      jsonBody({ name: benchmark, visibility: 'public' }),
      project,
    );
    const projectId = p.body.id;
    const newRun = async (branch: string, latencies: number[] | null) => {
      const r = await server.json(
        '/runs',
        jsonBody({
          project: projectId,
          benchmark,
          scenario: 's',
          mesh: { name: 'consul' },
          labels: { branch },
        }),
        run,
      );
      if (latencies) {
        await server.api(`/runs/${r.body.id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: events(latencies),
        });
      }
      return r.body.id;
    };
    const finish = (id: string) =>
      server.json(
        `/runs/${id}`,
        {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        },
        finishedRun,
      );
    const ms = (from: number, to: number, add = 0) =>
      Array.from({ length: to - from + 1 }, (_, i) => from + i + add);

    // Before any threshold: no gate.
    const early = await newRun('main', ms(1, 100));
    expect((await finish(early)).body.gate).toBeNull();
    expect((await server.json(`/runs/${early}/gate`)).status).toBe(404);
    // The run says so itself: a page need not ask for (and log) the 404.
    expect((await server.json(`/runs/${early}`, {}, run)).body.gated).toBe(false);

    for (const body of [
      { benchmark, rule: 'p99>+10%', baseline: 'branch:main', last: 3 },
      { benchmark, rule: 'within1s<95%' },
    ]) {
      expect((await server.json(`/projects/${projectId}/thresholds`, jsonBody(body))).status).toBe(
        201,
      );
    }
    expect(
      (
        await server.json(
          `/projects/${projectId}/thresholds`,
          jsonBody({ benchmark, rule: 'p99>+10%' }),
        )
      ).status,
    ).toBe(400); // relative, no baseline
    expect(
      (
        await server.json(
          `/projects/${projectId}/thresholds`,
          jsonBody({ benchmark, rule: 'p98>1s' }),
        )
      ).status,
    ).toBe(400);

    // main: P99 (rank 99 of 100) of 1..100 ms is 99 ms; of 11..110 ms, 109 ms.
    await finish(await newRun('main', ms(1, 100)));
    await finish(await newRun('main', ms(1, 100, 10)));
    // The baseline is the median of the last 3 finished main runs: P99s 99, 109, 99 -> 99 ms.
    const ok = await newRun('feature', ms(1, 100, 5)); // P99 104 <= 108.9
    const okGate = (await finish(ok)).body.gate;
    expect(okGate).toMatchObject({ passed: true });
    expect(okGate?.verdicts[0]).toMatchObject({
      rule: 'p99>+10%',
      current: 104,
      baselineValue: 99,
      bound: 108.9,
      failed: false,
      baseline: 'median of the last 3 finished run(s) on main',
    });
    expect(okGate?.verdicts[1]).toMatchObject({
      rule: 'within1s<95%',
      current: 100,
      failed: false,
    });

    const slow = await newRun('feature', [...ms(1, 94), 2000, 2000, 2000, 2000, 2000, 2000]); // P99 2,000 ms; 94 % within 1 s
    const slowGate = (await finish(slow)).body.gate;
    expect(slowGate?.passed).toBe(false);
    expect(slowGate?.verdicts.map((v) => [v.rule, v.failed, v.current])).toEqual([
      ['p99>+10%', true, 2000],
      ['within1s<95%', true, 94],
    ]);
    expect((await server.json(`/runs/${slow}/gate`, {}, gateResult)).body.passed).toBe(false);
    expect((await server.json(`/runs/${slow}`, {}, run)).body.gated).toBe(true);

    const empty = await newRun('feature', null);
    const emptyGate = (await finish(empty)).body.gate;
    expect(emptyGate?.verdicts[0]).toMatchObject({ failed: true, reason: 'no value for this run' });

    const lonely = `${benchmark}-lonely`;
    const lp = await server.json('/projects', jsonBody({ name: lonely }), project);
    await server.json(
      `/projects/${lp.body.id}/thresholds`,
      jsonBody({ benchmark, rule: 'p99>+10%', baseline: 'branch:main' }),
    );
    const r = await server.json(
      '/runs',
      jsonBody({ project: lp.body.id, benchmark, scenario: 's', mesh: { name: 'consul' } }),
      run,
    );
    await server.api(`/runs/${r.body.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: events(ms(1, 100)),
    });
    const missing = (await finish(r.body.id)).body.gate;
    expect(missing?.verdicts[0]).toMatchObject({
      failed: true,
      reason: 'no baseline to compare with',
    });

    // History: P99 of the benchmark's runs, oldest first.
    const hist = await server.json(
      `/history?benchmark=${benchmark}&metric=p99&branch=main`,
      {},
      history,
    );
    expect(hist.body.points.map((pt) => pt.value)).toEqual([99, 99, 109]);
    const within = await server.json(
      `/history?benchmark=${benchmark}&metric=within1s&branch=feature`,
      {},
      history,
    );
    expect(within.body.points.map((pt) => pt.value)).toEqual([100, 94, null]);
  });

  it('marks a change point in the history where P99 stepped up, and none for a single spike', async () => {
    const benchmark = `history-cp-${Date.now()}`;
    const p = await server.json(
      '/projects',
      jsonBody({ name: benchmark, visibility: 'public' }),
      project,
    );
    // 16 runs of consul: P99 ~100 ms for 8 runs, then ~130 ms; one spike run in istio's 12.
    const consulP99 = [
      100, 102, 99, 101, 100, 98, 101, 100, 130, 131, 129, 132, 130, 128, 131, 130,
    ];
    const istioP99 = [200, 201, 199, 200, 202, 400, 200, 199, 201, 200, 198, 201];
    const ids: Record<string, string[]> = { consul: [], istio: [] };
    for (const [mesh, p99s] of [
      ['consul', consulP99],
      ['istio', istioP99],
    ] as const) {
      for (const p99 of p99s) {
        const r = await server.json(
          '/runs',
          jsonBody({
            project: p.body.id,
            benchmark,
            scenario: 's',
            mesh: { name: mesh },
            labels: { branch: 'main' },
          }),
          run,
        );
        // 100 proxies at 1..99 ms and one at the run's P99 (nearest rank 99 of 100 is the 99th).
        const latencies = [...Array.from({ length: 98 }, (_, i) => i + 1), p99, p99 + 1];
        await server.api(`/runs/${r.body.id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: events(latencies),
        });
        ids[mesh]?.push(r.body.id);
      }
    }
    const hist = await server.json(
      `/history?benchmark=${benchmark}&metric=p99&limit=100`,
      {},
      history,
    );
    expect(
      hist.body.points.filter((pt) => pt.mesh.name === 'consul').map((pt) => pt.value),
    ).toEqual(consulP99);
    expect(hist.body.detection).toMatchObject({
      maxPValue: 0.001,
      minMagnitude: 0.05,
      minSegment: 3,
    });
    expect(hist.body.changePoints).toHaveLength(1);
    const [cp] = hist.body.changePoints;
    expect(cp).toMatchObject({ mesh: 'consul', scenario: 's', branch: 'main' });
    expect(cp?.runId).toBe(ids.consul?.[8]);
    expect(cp?.previousRunId).toBe(ids.consul?.[7]);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(cp?.before).toBeCloseTo(mean(consulP99.slice(0, 8)), 9);
    expect(cp?.after).toBeCloseTo(mean(consulP99.slice(8)), 9);
    expect(cp?.pValue).toBeLessThan(0.001);
    // istio's one slow run is no change point (the domain test holds Otava's two-point spike).
    expect(hist.body.changePoints.filter((c) => c.mesh === 'istio')).toEqual([]);
    expect(hist.body.points.filter((pt) => pt.mesh.name === 'istio').map((pt) => pt.value)).toEqual(
      istioP99,
    );
  });

  it('fails a percentile rule only on a significant change beyond the rule and the noise floor', async () => {
    const benchmark = `gate-noise-${Date.now()}`;
    const p = await server.json(
      '/projects',
      jsonBody({ name: benchmark, visibility: 'public' }),
      project,
    );
    const newRun = async (latencies: number[], extra: Record<string, unknown> = {}) => {
      const r = await server.json(
        '/runs',
        jsonBody({
          project: p.body.id,
          benchmark,
          scenario: 's',
          mesh: { name: 'consul' },
          ...extra,
        }),
        run,
      );
      await server.api(`/runs/${r.body.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: events(latencies),
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
    // 50 proxies at 10, 20 ... 500 ms: P99 (rank 50 of 50) is the slowest, 500 ms.
    const tens = (scale = 1) => Array.from({ length: 50 }, (_, i) => (i + 1) * 10 * scale);
    const topology = { nodes: 10, instances: 50 };
    const base = await newRun(tens(), { topology });
    await finish(base);
    const created = await server.json(
      `/projects/${p.body.id}/thresholds`,
      jsonBody({ benchmark, rule: 'p99>+10%', baseline: base }),
    );
    expect(created.status).toBe(201);

    // One proxy slower: P99 500 -> 600 ms breaks the fixed rule, but a resample of the 50
    // misses that one proxy about a third of the time ((49/50)^50): the interval holds 0.
    const oneSlow = await finish(await newRun([...tens().slice(0, 49), 600], { topology }));
    expect(oneSlow?.passed).toBe(true);
    expect(oneSlow?.verdicts[0]).toMatchObject({ current: 600, bound: 550, failed: false });
    expect(oneSlow?.verdicts[0]?.significance).toMatchObject({
      verdict: 'no-significant-change',
      delta: 100,
    });
    expect(oneSlow?.verdicts[0]?.significance?.low).toBeLessThanOrEqual(0);

    // Every proxy 20 % slower: every resampled rank of 45 and above is slower than the
    // baseline's slowest, so the interval is above 0; +100 ms is beyond 10 % (50 ms).
    const slower = await finish(await newRun(tens(1.2), { topology }));
    expect(slower?.passed).toBe(false);
    expect(slower?.verdicts[0]?.significance).toMatchObject({ verdict: 'regressed', delta: 100 });
    expect(slower?.verdicts[0]?.significance?.low).toBeGreaterThan(0);

    // Another topology: not comparable, said so, and not failed on it.
    const other = await finish(await newRun(tens(1.2), { topology: { nodes: 5, instances: 50 } }));
    expect(other?.verdicts[0]?.significance).toMatchObject({
      verdict: 'not-comparable',
      reason: 'different topology: nodes 5 here, 10 in the baseline',
    });
    expect(other?.verdicts[0]?.failed).toBe(false);

    // Two repeats of one configuration whose P99s are 500 and 650 ms: the noise floor is
    // 150 ms, so +100 ms (20 % slower) is no longer a regression.
    await finish(await newRun(tens(), { topology, labels: { repeat: 'cfg-a' } }));
    await finish(await newRun(tens(1.3), { topology, labels: { repeat: 'cfg-a' } }));
    const withinNoise = await finish(await newRun(tens(1.2), { topology }));
    expect(withinNoise?.verdicts[0]?.significance).toMatchObject({
      verdict: 'no-significant-change',
      noiseFloorMs: 150,
      reason: '100.0 ms is within the noise floor (150.0 ms)',
    });
    expect(withinNoise?.passed).toBe(true);
  });

  it('keeps a change point found at a run finish as an alert: triaged by a named token, still dismissed after later runs', async () => {
    const benchmark = `alerts-${Date.now()}`;
    const p = await server.json(
      '/projects',
      jsonBody({ name: benchmark, visibility: 'private' }),
      project,
    );
    const token = await server.json(
      `/projects/${p.body.id}/tokens`,
      jsonBody({ name: 'triage-bot' }),
      createdToken,
    );
    const asBot = { authorization: `Bearer ${token.body.token}` };
    const ids: string[] = [];
    const finishRun = async (p99: number) => {
      ids.push(await finishedRunAtP99(p.body.id, benchmark, p99, { branch: 'main' }));
    };
    const allAlerts = async () =>
      (await server.json(`/projects/${p.body.id}/alerts`, { headers: asBot }, z.array(alert))).body;
    // P99 and the slowest proxy (max, time to 100 %) step together; P50 and within 1 s do not.
    const alerts = async () => (await allAlerts()).filter((a) => a.series.metric === 'p99');
    for (const p99 of [100, 102, 99, 101, 100, 98, 101, 100]) await finishRun(p99);
    expect(await allAlerts()).toEqual([]);
    for (const p99 of [130, 131, 129]) await finishRun(p99);
    expect((await allAlerts()).map((a) => [a.series.metric, a.runId]).sort()).toEqual([
      ['max', ids[8]],
      ['p99', ids[8]],
    ]);
    // Three runs after the step: the change point, found at the last finish, is an open alert.
    const [found] = await alerts();
    expect(found).toMatchObject({
      kind: 'change-point',
      state: 'open',
      detected: true,
      runId: ids[8],
      previousRunId: ids[7],
      series: { benchmark, scenario: 's', mesh: 'consul', branch: 'main', metric: 'p99' },
    });
    expect(found?.log.map((l) => [l.by, l.action])).toEqual([['meshbench', 'detected']]);

    // Dismissing needs a reason, and a token of the project.
    const noReason = await server.json(`/alerts/${found?.id}`, {
      method: 'PATCH',
      headers: { ...asBot, 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'dismissed' }),
    });
    expect(noReason.status).toBe(400);
    const dismissed = await server.json(
      `/alerts/${found?.id}`,
      {
        method: 'PATCH',
        headers: { ...asBot, 'content-type': 'application/json' },
        body: JSON.stringify({ state: 'dismissed', reason: 'expected: the new retry policy' }),
      },
      alert,
    );
    expect(dismissed.body.state).toBe('dismissed');
    expect(dismissed.body.log.at(-1)).toMatchObject({
      by: 'triage-bot',
      action: 'dismissed',
      reason: 'expected: the new retry policy',
    });

    // Later runs on the new level: the same alert, still dismissed, no new one.
    for (const p99 of [130, 128, 131, 130]) await finishRun(p99);
    const after = await alerts();
    expect(after.map((a) => [a.id, a.state, a.runId, a.detected])).toEqual([
      [found?.id, 'dismissed', ids[8], true],
    ]);
    // The history shows the change point with its alert's state.
    const hist = await server.json(`/history?benchmark=${benchmark}&metric=p99`, {}, history);
    expect(hist.body.changePoints.map((c) => [c.runId, c.alert])).toEqual([
      [ids[8], { id: found?.id, state: 'dismissed' }],
    ]);
  });

  it('looks again at the change points of runs written after their finish, once per write', async () => {
    const benchmark = `late-alerts-${Date.now()}`;
    const p = await server.json('/projects', jsonBody({ name: benchmark }), project);
    const ids: string[] = [];
    for (const p99 of [100, 102, 99, 101, 100, 98, 101, 100, 99, 101, 100])
      ids.push(await finishedRunAtP99(p.body.id, benchmark, p99));
    const p99Alerts = async () =>
      (await server.json(`/projects/${p.body.id}/alerts`, {}, z.array(alert))).body.filter(
        (a) => a.series.metric === 'p99',
      );
    const recheck = () => server.app.recheckAlerts({ projectId: p.body.id, settledMs: 0 });
    expect(await p99Alerts()).toEqual([]);
    // Nothing was written after a finish: nothing to look at again.
    expect(await recheck()).toBe(0);

    // Three proxies more reach each of the last three runs after their finish: of 103 values
    // (1-98, p99, p99 + 1, 130, 131, 132), the nearest-rank P99 is the 102nd, 131 ms.
    for (const id of ids.slice(8)) {
      const late = await server.api(`/runs/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: ndjson(
          [130, 131, 132].map((ms, i) => ({
            type: 'observation',
            change: 'c1',
            proxy: `late${i}`,
            at: new Date(T0 + ms).toISOString(),
          })),
        ),
      });
      expect(late.status).toBe(200);
    }
    // The alerts were made at the finishes, before these writes.
    expect(await p99Alerts()).toEqual([]);
    expect(await recheck()).toBe(3);
    const [found, ...more] = await p99Alerts();
    expect(more).toEqual([]);
    expect(found).toMatchObject({
      kind: 'change-point',
      state: 'open',
      detected: true,
      runId: ids[8],
      previousRunId: ids[7],
    });
    expect(found?.details).toMatchObject({ after: 131 });
    // Looked at with the data as it is now: not again until the next write.
    expect(await recheck()).toBe(0);
    expect((await p99Alerts()).map((a) => [a.id, a.log.length])).toEqual([[found?.id, 1]]);
  });
});
