// Stages: one summary per stage of a change, the per-proxy gap between two stages, and
// coverage, each checked against values computed here from the events themselves.
import { apiError, changeList, propagation, stageGap } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = '2026-02-01T10:00:00.000000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const change = {
  type: 'change',
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: T0,
  expected: 6,
};
type Obs = { proxy: string; ms: number; stage?: string };
const obs = ({ proxy, ms, stage }: Obs) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  at: at(ms),
  ...(stage === undefined ? {} : { stage }),
});

// received: p1..p5 (p1 again earlier in the second batch, p2 repeats); applied (no stage,
// or `applied` named): p1..p4 and p6, which was never seen received (p5 never applied);
// p3 repeats; serving: p1 and p2 only.
const first: Obs[] = [
  { proxy: 'p1', ms: 10, stage: 'received' },
  { proxy: 'p2', ms: 20, stage: 'received' },
  { proxy: 'p3', ms: 30, stage: 'received' },
  { proxy: 'p1', ms: 15 },
  { proxy: 'p2', ms: 30 },
  { proxy: 'p3', ms: 60 },
  { proxy: 'p1', ms: 25, stage: 'serving' },
];
const second: Obs[] = [
  { proxy: 'p4', ms: 40, stage: 'received' },
  { proxy: 'p5', ms: 50, stage: 'received' },
  { proxy: 'p2', ms: 100, stage: 'received' },
  { proxy: 'p1', ms: 5, stage: 'received' },
  { proxy: 'p4', ms: 100, stage: 'applied' },
  { proxy: 'p6', ms: 80 },
  { proxy: 'p3', ms: 200 },
  { proxy: 'p2', ms: 50, stage: 'serving' },
];
const all = [...first, ...second];

/** Each proxy's first time at a stage (no stage is `applied`), computed from the events. */
function firsts(stage: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of all) {
    if ((o.stage ?? 'applied') !== stage) continue;
    const before = out.get(o.proxy);
    if (before === undefined || o.ms < before) out.set(o.proxy, o.ms);
  }
  return out;
}
const sortedOf = (m: Map<string, number>) => [...m.values()].sort((a, b) => a - b);
const nearest = (p: number, sorted: number[]) =>
  sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
const observationsAt = (stage: string) =>
  all.filter((o) => (o.stage ?? 'applied') === stage).length;

describe.each(backends)('stages on $name', (backend) => {
  const server = useServer(backend);

  async function stagedRun() {
    const run = await createRun(server);
    expect((await postEvents(server, run.id, ndjson([change, ...first.map(obs)]))).status).toBe(
      200,
    );
    expect((await postEvents(server, run.id, ndjson(second.map(obs)))).status).toBe(200);
    return run;
  }
  const summary = (runId: string, query: string) =>
    server.json(`/runs/${runId}/changes/c1/propagation?${query}`, {}, propagation);

  it('keeps one distribution per stage, merged over batches', async () => {
    const run = await stagedRun();
    for (const stage of ['received', 'applied', 'serving']) {
      const sorted = sortedOf(firsts(stage));
      const query = stage === 'applied' ? 'percentiles=50,90' : `percentiles=50,90&stage=${stage}`;
      const { status, body } = await summary(run.id, query);
      expect(status).toBe(200);
      expect(body.stage).toBe(stage);
      expect(body).toMatchObject({
        count: sorted.length,
        observations: observationsAt(stage),
        repeats: observationsAt(stage) - sorted.length,
        minMs: sorted[0],
        maxMs: sorted.at(-1),
        missing: 6 - sorted.length,
      });
      expect(body.percentiles.map((p) => [p.p, p.ms, p.exact])).toEqual([
        [50, nearest(50, sorted), true],
        [90, nearest(90, sorted), true],
      ]);
    }
    // By hand: received firsts 5, 20, 30, 40, 50 (7 observations); applied 15, 30, 60, 80,
    // 100 (6); serving 25, 50 (2). Every stage, in the order a change reaches them.
    const applied = (await summary(run.id, 'percentiles=50')).body;
    const stages = [
      { stage: 'received', count: 5, observations: 7 },
      { stage: 'applied', count: 5, observations: 6 },
      { stage: 'serving', count: 2, observations: 2 },
    ];
    expect(applied.stages).toEqual(stages);
    expect(applied.percentiles[0]?.ms).toBe(60);
    const list = (await server.json(`/runs/${run.id}/changes`, {}, changeList)).body;
    expect(list[0]?.stages).toEqual(stages);
    expect(list[0]).toMatchObject({ count: 5, repeats: 1 }); // the applied stage, as before
  });

  it('gives coverage of the expected proxies per stage', async () => {
    const run = await stagedRun();
    // 6 expected: 50 % is 3 proxies, 90 / 96.6 / 99 / 100 % are 6 (ceil 5.4, 5.796, 5.94).
    const received = (await summary(run.id, 'stage=received')).body;
    expect(received.coverage).toEqual({
      of: 'expected',
      base: 6,
      exact: true,
      points: [
        { percent: 50, proxies: 3, ms: 30 },
        { percent: 90, proxies: 6, ms: null },
        { percent: 96.6, proxies: 6, ms: null },
        { percent: 99, proxies: 6, ms: null },
        { percent: 100, proxies: 6, ms: null },
      ],
    });
    expect((await summary(run.id, 'stage=applied')).body.coverage.points[0]).toEqual({
      percent: 50,
      proxies: 3,
      ms: 60,
    });
  });

  it('gives the per-proxy gap between two stages', async () => {
    const run = await stagedRun();
    const gapOf = (from: string, to: string) => {
      const f = firsts(from);
      const t = firsts(to);
      const gaps = [...f].filter(([p]) => t.has(p)).map(([p, ms]) => (t.get(p) as number) - ms);
      return {
        sorted: gaps.sort((a, b) => a - b),
        onlyFrom: [...f.keys()].filter((p) => !t.has(p)).length,
        onlyTo: [...t.keys()].filter((p) => !f.has(p)).length,
      };
    };
    // The default: the first stage to the last (received to serving): p1 25-5, p2 50-20.
    const byDefault = await server.json(
      `/runs/${run.id}/changes/c1/stages/gap?percentiles=50,90&bins=2`,
      {},
      stageGap,
    );
    expect(byDefault.status).toBe(200);
    const rs = gapOf('received', 'serving');
    expect(rs.sorted).toEqual([20, 30]);
    expect(byDefault.body).toMatchObject({
      from: 'received',
      to: 'serving',
      count: 2,
      onlyFrom: rs.onlyFrom, // p3, p4, p5
      onlyTo: 0,
      negative: 0,
      minMs: 20,
      maxMs: 30,
      meanMs: 25,
      histogram: [
        { fromMs: 20, toMs: 25, count: 1 },
        { fromMs: 25, toMs: 30, count: 1 },
      ],
    });
    expect(byDefault.body.percentiles).toEqual([
      { p: 50, ms: 20, exact: true, method: 'raw' },
      { p: 90, ms: 30, exact: true, method: 'raw' },
    ]);
    // received to applied: p1 10, p2 10, p3 30, p4 60; p5 only received, p6 only applied.
    const ra = gapOf('received', 'applied');
    const answer = (
      await server.json(
        `/runs/${run.id}/changes/c1/stages/gap?from=received&to=applied&percentiles=50,99`,
        {},
        stageGap,
      )
    ).body;
    expect(answer).toMatchObject({ count: 4, onlyFrom: 1, onlyTo: 1, meanMs: 27.5 });
    expect(answer.percentiles.map((p) => p.ms)).toEqual([
      nearest(50, ra.sorted),
      nearest(99, ra.sorted),
    ]);
    // Backwards, every gap is negative.
    const back = (
      await server.json(
        `/runs/${run.id}/changes/c1/stages/gap?from=applied&to=received`,
        {},
        stageGap,
      )
    ).body;
    expect(back).toMatchObject({ count: 4, negative: 4, minMs: -60, maxMs: -10 });
    // A histogram range: gaps 10, 10, 30, 60 over [0, 40) in 2 bins; 60 is above it.
    const ranged = (
      await server.json(
        `/runs/${run.id}/changes/c1/stages/gap?from=received&to=applied&bins=2&fromMs=0&toMs=40`,
        {},
        stageGap,
      )
    ).body;
    expect(ranged).toMatchObject({
      histogram: [
        { fromMs: 0, toMs: 20, count: 2 },
        { fromMs: 20, toMs: 40, count: 1 },
      ],
      underflow: 0,
      overflow: 1,
    });
    const same = await server.json(
      `/runs/${run.id}/changes/c1/stages/gap?from=applied&to=applied`,
      {},
      apiError,
    );
    expect(same.status).toBe(400);
  });

  it('shows the stage present when a change has no applied observations, and says so', async () => {
    const run = await createRun(server);
    const lines = [
      { ...change, expected: undefined },
      obs({ proxy: 'a', ms: 10, stage: 'received' }),
      obs({ proxy: 'a', ms: 30, stage: 'serving' }),
      obs({ proxy: 'b', ms: 40, stage: 'serving' }),
    ];
    expect((await postEvents(server, run.id, ndjson(lines))).status).toBe(200);
    const { body } = await summary(run.id, 'percentiles=50');
    expect(body).toMatchObject({ stage: 'serving', count: 2, minMs: 30, maxMs: 40 });
    // No expected: coverage is of the 2 proxies seen at the stage.
    expect(body.coverage).toMatchObject({ of: 'observed', base: 2 });
    expect(body.coverage.points.at(-1)).toEqual({ percent: 100, proxies: 2, ms: 40 });
    // A stage asked for that the change never reached: nothing seen, and named.
    const none = (await summary(run.id, 'stage=acked')).body;
    expect(none).toMatchObject({ stage: 'acked', count: 0, observations: 0, percentiles: [] });
    // A run without stages answers as before: applied, one stage.
    const plain = await createRun(server);
    await postEvents(server, plain.id, ndjson([change, obs({ proxy: 'x', ms: 7 })]));
    const before = (await summary(plain.id, 'percentiles=50')).body;
    expect(before).toMatchObject({ stage: 'applied', count: 1, minMs: 7 });
    expect(before.stages).toEqual([{ stage: 'applied', count: 1, observations: 1 }]);
  });

  it('keeps each stage equal to a recomputation when batches of several stages arrive at once', async () => {
    const run = await createRun(server);
    expect((await postEvents(server, run.id, ndjson([change]))).status).toBe(200);
    // Four batches at once (the server's default limit), proxies overlapping the next
    // batch's, each line's stage one of three (or none), times that move a proxy's first
    // observation back and forth.
    const STAGES = ['received', undefined, 'applied', 'serving'] as const;
    const sent: Obs[][] = Array.from({ length: 4 }, (_, k) =>
      Array.from({ length: 1500 }, (_, i) => {
        const p = k * 1000 + i;
        const stage = STAGES[(p * 7 + k) % STAGES.length];
        return {
          proxy: `p${p}`,
          ms: ((p * 7919 + k * 31) % 5000) - 20,
          ...(stage === undefined ? {} : { stage }),
        };
      }),
    );
    const answers = await Promise.all(
      sent.map((b) => postEvents(server, run.id, ndjson(b.map(obs)))),
    );
    for (const a of answers) expect(a.status).toBe(200);
    const every = sent.flat();
    for (const stage of ['received', 'applied', 'serving']) {
      const firstMs = new Map<string, number>();
      let observations = 0;
      for (const o of every) {
        if ((o.stage ?? 'applied') !== stage) continue;
        observations++;
        const before = firstMs.get(o.proxy);
        if (before === undefined || o.ms < before) firstMs.set(o.proxy, o.ms);
      }
      const sorted = sortedOf(firstMs);
      const { body } = await summary(run.id, `stage=${stage}&percentiles=1,50,99,100`);
      expect(body).toMatchObject({
        stage,
        count: sorted.length,
        observations,
        minMs: sorted[0],
        maxMs: sorted.at(-1),
        beforeChange: sorted.filter((ms) => ms < 0).length,
      });
      expect(body.percentiles.map((p) => p.ms)).toEqual(
        [1, 50, 99, 100].map((p) => nearest(p, sorted)),
      );
    }
  });

  it('takes any stage name, quotes and backslashes included', async () => {
    const run = await createRun(server);
    const odd = "it's \\ odd";
    const lines = [
      change,
      obs({ proxy: 'a', ms: 10, stage: odd }),
      obs({ proxy: 'a', ms: 17, stage: 'serving' }),
    ];
    expect((await postEvents(server, run.id, ndjson(lines))).status).toBe(200);
    const gap = await server.json(
      `/runs/${run.id}/changes/c1/stages/gap?from=${encodeURIComponent(odd)}&to=serving`,
      {},
      stageGap,
    );
    expect(gap.body).toMatchObject({ from: odd, count: 1, minMs: 7 });
  });

  it('exports observations with their stage', async () => {
    const run = await stagedRun();
    const text = await (await server.api(`/runs/${run.id}/events`)).text();
    const observations = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'observation');
    expect(observations).toHaveLength(all.length);
    const staged = (s: string | undefined) => observations.filter((o) => o.stage === s).length;
    expect(staged('received')).toBe(7);
    expect(staged('serving')).toBe(2);
    expect(staged('applied')).toBe(1); // named so; the other 5 applied have none
    expect(staged(undefined)).toBe(5);
  });

  describe('a bad stage is a 400 naming the line and field, and nothing is stored', () => {
    const bad: [string, unknown][] = [
      ['empty', ''],
      ['too long', 's'.repeat(101)],
      ['not a string', 7],
    ];
    it.each(bad)('%s', async (_name, stage) => {
      const run = await createRun(server);
      const lines = [
        change,
        obs({ proxy: 'p1', ms: 1, stage: 'received' }),
        { ...obs({ proxy: 'p2', ms: 2 }), stage },
      ];
      const posted = await postEvents(server, run.id, ndjson(lines), {}, apiError);
      expect(posted.status).toBe(400);
      expect(posted.body).toMatchObject({ code: 'invalid_event', line: 3, field: 'stage' });
      expect(posted.body.message).toContain('line 3');
      expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
    });
  });
});
