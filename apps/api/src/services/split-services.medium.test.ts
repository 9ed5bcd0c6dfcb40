// The services split out of propagation, history and gates, called directly on both
// databases: clock correction, run facts, and change-point alerts.
import { DEFAULT_PROJECT_ID } from '@meshbench/db';
import { describe, expect, it } from 'vitest';
import { ADMIN, backends, newRun, postEvents, useServices } from '../test/medium.ts';
import { FACTS_FORMULA } from './run-facts.service.ts';

const T0_MS = Date.parse('2026-02-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0_MS + ms).toISOString();

/** Node a is 20 ms ahead; b 12 ms behind; d has no reports (clocks.int.test.ts, smaller). */
const skewed = [
  { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', at: at(0) },
  { type: 'clock', node: 'a', at: at(-1000), offsetMs: 20, errorMs: 0.5 },
  { type: 'clock', node: 'b', at: at(-1000), offsetMs: -12, errorMs: 1 },
  ...[
    ['a1', 'a', 120],
    ['a2', 'a', 220],
    ['b1', 'b', -7],
    ['b2', 'b', 288],
    ['d1', 'd', 50],
  ].map(([proxy, node, ms]) => ({
    type: 'observation',
    change: 'c1',
    proxy,
    node,
    at: at(ms as number),
  })),
];

const detection = { maxPValue: 0.001, minMagnitude: 0.05, minSegment: 3, windowLen: 50 };

describe.each(backends)('split services on $name', (backend) => {
  const ctx = useServices(backend);

  it('keeps a corrected summary after a write, and a warm-up finds nothing stale', async () => {
    const { services } = ctx;
    const run = await newRun(services);
    expect(await postEvents(services, run.id, skewed)).toEqual({ accepted: 8, duplicate: false });
    // The write started the correction; a read waits for it and never computes one.
    const state = await services.corrections.correctedRead(run.id, 'c1');
    expect(state).toMatchObject({ hasReports: true, pending: false });
    // Corrected: a 100, 200; b 5, 300; d 50 (no reports: as read). Errors 0.5 and 1 ms.
    expect(state.summary).toMatchObject({
      count: 5,
      minUs: 5000,
      maxUs: 300_000,
      clockMaxErrorUs: 1000,
      clockNodes: 2,
      uncorrectedNodes: 1,
    });
    expect(await services.corrections.warmCorrected(run.id)).toBe(0);
    const p = await services.propagation.propagation(run.id, 'c1', {
      percentiles: [50],
      withinMs: 1000,
      bins: 1,
      scale: 'linear',
      clock: 'corrected',
    });
    // Nearest rank 3 of 5, 50, 100, 200, 300.
    expect(p.percentiles[0]).toMatchObject({ p: 50, ms: 100, clockErrorMs: 1, exact: false });
  });

  it("reads a finished run's kept facts as the facts computed before it finished", async () => {
    const { services } = ctx;
    const run = await newRun(services);
    await postEvents(services, run.id, skewed);
    const row = await services.runs.find(run.id);
    const computed = await services.runFacts.ofRuns([row as NonNullable<typeof row>]);
    await services.finish.finish(run.id, {});
    const finished = await services.runs.find(run.id);
    const kept = await services.runFacts.ofRuns([finished as NonNullable<typeof finished>]);
    // Kept facts say which formula computed them; computed ones need not.
    expect(kept.all).toEqual(computed.all.map((f) => ({ ...f, formula: FACTS_FORMULA })));
    expect(kept.all[0]?.values.p50).toMatchObject({ value: 120 });
    expect(await services.runFacts.keepMissing({ projectId: DEFAULT_PROJECT_ID })).toBe(0);
  });

  it('keeps a change point as an alert once, and marks it undetected when it goes', async () => {
    const { services } = ctx;
    const runs = [];
    for (let i = 0; i < 12; i++) runs.push(await newRun(services, { benchmark: 'medium-cp' }));
    const first = runs[0] as (typeof runs)[number];
    const series = {
      benchmark: 'medium-cp',
      scenario: first.scenario,
      mesh: 'consul',
      branch: null,
      metric: 'p99',
    };
    const step = runs.map((r, i) => ({ runId: r.id, value: (i < 6 ? 100 : 200) + (i % 3) }));
    const project = { projectId: first.projectId };
    await services.alerts.keepChangePoints(project, series, step, detection, {});
    await services.alerts.keepChangePoints(project, series, step, detection, {});
    const ours = async () =>
      (await services.alerts.alerts(DEFAULT_PROJECT_ID, undefined, ADMIN)).filter(
        (a) => a.series.scenario === first.scenario,
      );
    const found = await ours();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'change-point',
      runId: runs[6]?.id,
      previousRunId: runs[5]?.id,
      state: 'open',
      detected: true,
    });
    const flat = runs.map((r, i) => ({ runId: r.id, value: 100 + (i % 3) }));
    await services.alerts.keepChangePoints(project, series, flat, detection, {});
    const gone = await ours();
    expect(gone).toHaveLength(1);
    expect(gone[0]?.detected).toBe(false);
    expect(gone[0]?.log.map((l) => l.action)).toEqual(['detected', 'undetected']);
  });
});
