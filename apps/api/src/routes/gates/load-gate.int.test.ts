// Data-plane gate rules through the API: HdrHistogram interval logs uploaded to runs, a
// threshold on load.p99 held at each load step when a run finishes, and GET /runs/{id}/load-gate.
import { apiError, finishedRun, gateVerdict, project, run } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { writeHdrLog } from '../../ingest/results/hdr-log.test-fixtures.ts';
import { backends, jsonBody, useServer } from '../../test/harness.ts';

const START = Date.UTC(2026, 10, 26, 12, 0, 0);
const STEP = 'mode=both&connections=64&targetRps=2000';

describe.each(backends)('data-plane gates on $name', (backend) => {
  const server = useServer(backend);

  it('calls a 20 % slower P99 regressed, one distribution no change, a short rate not comparable', async () => {
    const benchmark = `load-gate-${Date.now()}`;
    const p = await server.json('/projects', jsonBody({ name: benchmark }), project);
    const newRun = async (
      branch: string,
      log: { seed: number; medianUs: number; perInterval: number },
    ) => {
      const r = await server.json(
        '/runs',
        jsonBody({
          project: p.body.id,
          benchmark,
          scenario: 's',
          mesh: { name: 'istio', version: '1.22' },
          labels: { branch },
        }),
        run,
      );
      const text = writeHdrLog({ ...log, startMs: START, intervals: 10 }).text;
      const posted = await server.api(`/runs/${r.body.id}/results?${STEP}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: text,
      });
      expect(posted.status).toBe(201);
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

    const bad = await server.json(
      `/projects/${p.body.id}/thresholds`,
      jsonBody({ benchmark, rule: 'load.p95>+10%', baseline: 'branch:main' }),
      apiError,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/unknown metric "load.p95"/);
    expect(
      (
        await server.json(
          `/projects/${p.body.id}/thresholds`,
          jsonBody({ benchmark, rule: 'load.p99>+10%', baseline: 'branch:main' }),
        )
      ).status,
    ).toBe(201);

    // 2,000 requests a second for 10 s, log-normal around 2 ms.
    const base = await newRun('main', { seed: 1, medianUs: 2000, perInterval: 2000 });
    await finish(base);

    // Every latency 20 % longer: P99 20 % worse.
    const slow = await newRun('feature', { seed: 2, medianUs: 2400, perInterval: 2000 });
    const slowGate = await finish(slow);
    expect(slowGate?.passed).toBe(false);
    const sv = slowGate?.verdicts[0];
    expect(sv).toMatchObject({ rule: 'load.p99>+10%', verdict: 'regressed', failed: true });
    expect(sv?.baseline).toBe(`run ${base} (the newest finished on main)`);
    expect(sv?.steps).toHaveLength(1);
    const step = sv?.steps?.[0];
    expect(step).toMatchObject({
      mode: 'both',
      connections: 64,
      targetRps: 2000,
      verdict: 'regressed',
      tested: true,
    });
    expect((step?.current as number) / (step?.baselineValue as number)).toBeGreaterThan(1.15);
    expect(step?.significance?.low).toBeGreaterThan(0);

    // The same distribution, other draws: no significant change, the gate passes.
    const same = await newRun('feature', { seed: 3, medianUs: 2000, perInterval: 2000 });
    const sameGate = await finish(same);
    expect(sameGate?.passed).toBe(true);
    expect(sameGate?.verdicts[0]).toMatchObject({
      verdict: 'no-significant-change',
      failed: false,
    });
    expect(sameGate?.verdicts[0]?.steps?.[0]?.tested).toBe(true);

    // 1,800 of 2,000 RPS: 10 % short of the target, so not comparable, whatever its P99.
    const short = await newRun('feature', { seed: 4, medianUs: 3000, perInterval: 1800 });
    const shortGate = await finish(short);
    expect(shortGate?.passed).toBe(true);
    expect(shortGate?.verdicts[0]).toMatchObject({ verdict: 'not-comparable', failed: false });
    expect(shortGate?.verdicts[0]?.steps?.[0]?.reason).toMatch(
      /^achieved RPS below target by more than 5 % here: 1,800 of 2,000 RPS \(10 % below\)/,
    );

    // Asked directly: a rule on the rate itself measures the shortfall.
    const asked = await server.json(
      `/runs/${short}/load-gate?rule=${encodeURIComponent('load.rps<-5%')}&baseline=${base}`,
      {},
      z.union([gateVerdict, apiError]),
    );
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({
      verdict: 'regressed',
      failed: true,
      current: 1800,
      bound: 1900,
      baseline: `run ${base}`,
    });
    expect((asked.body as z.infer<typeof gateVerdict>).steps?.[0]?.reason).toMatch(
      /not significance-tested: a rate/,
    );
    const unreadable = await server.json(
      `/runs/${short}/load-gate?rule=${encodeURIComponent('load.p99>+10%')}`,
      {},
      apiError,
    );
    expect(unreadable.status).toBe(400);
  });

  it("holds a difference within the step's noise floor, from runs labelled repeat, as no change", async () => {
    const benchmark = `load-floor-${Date.now()}`;
    const p = await server.json('/projects', jsonBody({ name: benchmark }), project);
    const newRun = async (labels: Record<string, string>, seed: number, medianUs: number) => {
      const r = await server.json(
        '/runs',
        jsonBody({ project: p.body.id, benchmark, scenario: 's', mesh: { name: 'istio' }, labels }),
        run,
      );
      const log = writeHdrLog({ seed, medianUs, perInterval: 2000, startMs: START, intervals: 10 });
      await server.api(`/runs/${r.body.id}/results?${STEP}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: log.text,
      });
      await server.api(`/runs/${r.body.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const sorted = [...log.values].sort((a, b) => a - b);
      return {
        id: r.body.id,
        p99Ms: (sorted[Math.ceil(0.99 * sorted.length) - 1] as number) / 1000,
      };
    };
    // A/A: one configuration run twice, its P99 apart by about 30 %.
    const a = await newRun({ repeat: 'aa' }, 11, 2000);
    const b = await newRun({ repeat: 'aa' }, 12, 2600);
    const base = await newRun({}, 13, 2000);
    const slow = await newRun({}, 14, 2400);
    const asked = await server.json(
      `/runs/${slow.id}/load-gate?rule=${encodeURIComponent('load.p99>+10%')}&baseline=${base.id}`,
      {},
      gateVerdict,
    );
    expect(asked.status).toBe(200);
    const step = asked.body.steps?.[0];
    // The floor is the spread of the two repeats' P99 (HdrHistogram buckets: within 0.02 ms).
    const floor = step?.significance?.noiseFloorMs as number;
    expect(Math.abs(floor - Math.abs(b.p99Ms - a.p99Ms))).toBeLessThan(0.02);
    expect(step?.significance?.delta).toBeLessThan(floor);
    expect(step).toMatchObject({ verdict: 'no-significant-change', failed: false, tested: true });
    expect(step?.reason).toMatch(/is within the noise floor/);
    expect(asked.body.failed).toBe(false);

    // A private project's run is no baseline for a reader who may not read it.
    const hidden = await server.json(
      '/projects',
      jsonBody({ name: `${benchmark}-private`, visibility: 'private' }),
      project,
    );
    const secret = await server.json(
      '/runs',
      jsonBody({ project: hidden.body.id, benchmark, scenario: 's', mesh: { name: 'istio' } }),
      run,
    );
    const path = `/runs/${slow.id}/load-gate?rule=${encodeURIComponent('load.p99>+10%')}&baseline=${secret.body.id}`;
    expect((await server.anonJson(path, {}, apiError)).status).toBe(401);
    expect((await server.json(path, {}, gateVerdict)).status).toBe(200);
  });
});
