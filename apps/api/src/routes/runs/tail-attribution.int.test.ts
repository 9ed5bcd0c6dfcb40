import { tailAttribution } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = '2026-02-01T10:00:00.000000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const node = (n: number) => `n-${String(n).padStart(3, '0')}`;
const change = (expected: number) => ({
  type: 'change',
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: T0,
  expected,
});
const obs = (proxy: string, n: number, ms: number, extra: Record<string, unknown> = {}) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  node: node(n),
  at: at(ms),
  ...extra,
});

/**
 * 100 nodes of 5 proxies (500). Proxy p of node n applies at 100 + 5n + p ms (all distinct,
 * at most 599), except on n-042, the slow node: 5000 + 100p ms. The nearest-rank P99 is
 * rank ceil(0.99 * 500) = 495, the largest fast proxy: 599 ms; the tail is n-042's 5.
 * az is a, b, c by n % 3 (a: 34 nodes = 170 proxies); pool is big for even n (250).
 */
function oneSlowNode() {
  const events: unknown[] = [change(500)];
  for (let n = 0; n < 100; n++) {
    for (let p = 0; p < 5; p++) {
      const ms = n === 42 ? 5000 + 100 * p : 100 + 5 * n + p;
      const attrs = { az: 'abc'[n % 3], pool: n % 2 === 0 ? 'big' : 'small' };
      events.push(obs(`${node(n)}-p${p}`, n, ms, { attrs }));
    }
  }
  events.push(
    // Three of the slow proxies had their own TCP retransmits, reported with the server.
    ...[0, 1, 2].map((p) => ({
      type: 'incident',
      kind: 'tcp-retransmits',
      proxy: `n-042-p${p}`,
      from: at(200),
      to: at(900),
      attrs: { server: 'cp-2' },
    })),
    // Over before the change: explains nothing.
    { type: 'incident', kind: 'leader-election', node: 'n-042', from: at(-9000), to: at(-1) },
    // On a fast node: counted overall only, so never ranked.
    { type: 'incident', kind: 'packet-loss', node: 'n-007', from: at(0), to: at(60_000) },
    // A repeat with a cause: the first application (no cause) is what counts.
    obs('n-042-p4', 42, 9000, { cause: 'late' }),
  );
  return events;
}

describe.each(backends)('tail attribution on $name', (backend) => {
  const server = useServer(backend);
  const attribution = (runId: string, query = '') =>
    server.json(`/runs/${runId}/changes/c1/tail/attribution${query}`, {}, tailAttribution);

  it('ranks the one slow node among 100 first, lift 100, worked by hand', async () => {
    const run = await createRun(server);
    expect((await postEvents(server, run.id, ndjson(oneSlowNode()))).status).toBe(200);
    const { status, body } = await attribution(run.id);
    expect(status).toBe(200);
    // lift = (inTail / 5) / (overall / 500). Ranked by excess share = inTail / 5 - overall /
    // 500: n-042 1 - 0.01 = 0.99; az a 1 - 0.34 = 0.66; the incident and its server 0.6 -
    // 0.006 = 0.594 (tied, then by name); pool big 1 - 0.5 = 0.5.
    expect(body).toEqual({
      clock: 'raw',
      clockErrorMs: null,
      thresholdMs: 599,
      thresholdP: 99,
      tailCount: 5,
      total: 500,
      minTailCount: 3,
      values: [
        { attribute: 'node', value: 'n-042', inTail: 5, overall: 5, share: 1, lift: 100 },
        { attribute: 'az', value: 'a', inTail: 5, overall: 170, share: 1, lift: 1 / (170 / 500) },
        {
          attribute: 'incident',
          value: 'tcp-retransmits',
          inTail: 3,
          overall: 3,
          share: 0.6,
          lift: 100,
        },
        {
          attribute: 'incident.server',
          value: 'cp-2',
          inTail: 3,
          overall: 3,
          share: 0.6,
          lift: 100,
        },
        { attribute: 'pool', value: 'big', inTail: 5, overall: 250, share: 1, lift: 2 },
      ],
    });
    expect(body.values[0]?.lift).toBeGreaterThanOrEqual(10);
    // The share slug reads it too; limit cuts the list.
    const bySlug = await attribution(run.slug, '?limit=1');
    expect(bySlug.body.values).toEqual([
      { attribute: 'node', value: 'n-042', inTail: 5, overall: 5, share: 1, lift: 100 },
    ]);
  });

  it('leads with the node holding most of the tail, over incidents found only in it', async () => {
    // 100 nodes of 10 proxies at 100 + n ms; n-010 and n-011 had a node incident each
    // (reconnect, packet-loss) and their proxies apply at 20 s; node n-100 is big (30
    // proxies), 28 of them apply at 60 s and 2 at 100 ms. Total 1030; the tail (> 1 s) is 48.
    const run = await createRun(server);
    const events: unknown[] = [change(1030)];
    for (let n = 0; n < 100; n++)
      for (let p = 0; p < 10; p++)
        events.push(obs(`${node(n)}-p${p}`, n, n === 10 || n === 11 ? 20_000 : 100 + n));
    for (let p = 0; p < 30; p++) events.push(obs(`n-100-p${p}`, 100, p < 28 ? 60_000 : 100));
    events.push(
      { type: 'incident', kind: 'reconnect', node: 'n-010', from: at(0), to: at(19_000) },
      { type: 'incident', kind: 'packet-loss', node: 'n-011', from: at(0), to: at(19_000) },
    );
    expect((await postEvents(server, run.id, ndjson(events))).status).toBe(200);
    const { body } = await attribution(run.id, '?thresholdMs=1000');
    // Lift: n-100 (28/48) / (30/1030) = 20.03; the incidents and n-010, n-011 (10/48) /
    // (10/1030) = 21.46, the largest possible. Excess share x 48 x 1030 = inTail x 1030 -
    // overall x 48: n-100 28840 - 1440 = 27400; the others 10300 - 480 = 9820 (tied, then
    // lift, tail count and name).
    expect(body).toMatchObject({ tailCount: 48, total: 1030, minTailCount: 3 });
    expect(body.values.map((v) => [v.attribute, v.value, v.inTail, v.overall])).toEqual([
      ['node', 'n-100', 28, 30],
      ['incident', 'packet-loss', 10, 10],
      ['incident', 'reconnect', 10, 10],
      ['node', 'n-010', 10, 10],
      ['node', 'n-011', 10, 10],
    ]);
    expect(body.values[0]?.lift).toBeCloseTo((28 * 1030) / (48 * 30), 12);
    expect(body.values[1]?.lift).toBeCloseTo(1030 / 48, 12);
  });

  it('finds nothing standing out in a tail spread evenly over the nodes', async () => {
    // 10 nodes of 20 proxies; proxy p of node n at 100 + 10p + n ms. Slower than 259 ms:
    // p >= 16, four on every node (40). Each node: (4/40) / (20/200) = 1.
    const run = await createRun(server);
    const events: unknown[] = [change(200)];
    for (let n = 0; n < 10; n++)
      for (let p = 0; p < 20; p++)
        events.push(obs(`${node(n)}-p${p}`, n, 100 + 10 * p + n, { attrs: { az: 'ab'[n % 2] } }));
    expect((await postEvents(server, run.id, ndjson(events))).status).toBe(200);
    const { status, body } = await attribution(run.id, '?thresholdMs=259');
    expect(status).toBe(200);
    expect(body).toMatchObject({ thresholdMs: 259, thresholdP: null, tailCount: 40, total: 200 });
    const values = body.values as { attribute: string; inTail: number; lift: number }[];
    expect(values.length).toBe(10);
    expect(values.every((v) => Math.abs(v.lift - 1) < 1e-12)).toBe(true);
    // Largest tail count first among equal lifts: the two azs (20 each).
    expect(values.slice(0, 2).map((v) => [v.attribute, v.inTail])).toEqual([
      ['az', 20],
      ['az', 20],
    ]);
  });

  it('says what was wrong: both cuts, an unknown change', async () => {
    const run = await createRun(server);
    expect((await postEvents(server, run.id, ndjson([change(1)]))).status).toBe(200);
    const both = await attribution(run.id, '?thresholdMs=1&thresholdP=99');
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toContain('thresholdP');
    const missing = await server.json(`/runs/${run.id}/changes/nope/tail/attribution`);
    expect(missing.status).toBe(404);
    // A change nobody applied: no cut, no tail.
    expect((await attribution(run.id)).body).toEqual({
      clock: 'raw',
      clockErrorMs: null,
      thresholdMs: null,
      thresholdP: 99,
      tailCount: 0,
      total: 0,
      minTailCount: 3,
      values: [],
    });
  });
});
