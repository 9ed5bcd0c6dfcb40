import { apiError, ingestResult, propagation, runClocks } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  backends,
  createRun,
  jsonBody,
  ndjson,
  postEvents,
  type TestServer,
  useServer,
} from '../../test/harness.ts';

const T0_MS = Date.parse('2026-02-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0_MS + ms).toISOString();

/**
 * Four nodes, six proxies, worked by hand. Node a is 20 ms ahead (error 0.5 ms); b is
 * 12 ms behind, given as an NTP exchange at T0 - 5 s (1 ms each way: t1 = R - 12, t2 = t3 =
 * R + 1, t4 = R - 10, so offset -12 ms, delay 2 ms, error 1 ms); c drifts from -10 ms at T0
 * to -6 ms at T0 + 2 s (errors 0.2, 0.4: 0.4 between them); d has no reports.
 * True latencies (ms): a 100, 200; b 5, 300; c 1000; d 50. Raw, as the node clocks put
 * them: a 120, 220; b -7, 288; c 992 (offset -8 at reference 1000); d 50.
 */
const changeEvent = {
  type: 'change',
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: at(0),
  expected: 6,
};
const obs = (proxy: string, node: string, rawMs: number) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  node,
  at: at(rawMs),
});
const R = -5000;
const clockEvents = [
  { type: 'clock', node: 'a', at: at(-1000), offsetMs: 20, errorMs: 0.5 },
  { type: 'clock', node: 'b', t1: at(R - 12), t2: at(R + 1), t3: at(R + 1), t4: at(R - 10) },
  { type: 'clock', node: 'c', at: at(0), offsetMs: -10, errorMs: 0.2 },
  { type: 'clock', node: 'c', at: at(2000), offsetMs: -6, errorMs: 0.4 },
];
const observations = [
  obs('a1', 'a', 120),
  obs('a2', 'a', 220),
  obs('b1', 'b', -7),
  obs('b2', 'b', 288),
  obs('c1', 'c', 992),
  obs('d1', 'd', 50),
];

async function skewedRun(server: TestServer) {
  const run = await createRun(server);
  const posted = await postEvents(
    server,
    run.id,
    ndjson([changeEvent, ...clockEvents, ...observations]),
  );
  expect(posted).toEqual({ status: 200, body: { accepted: 11, duplicate: false } });
  return run;
}

describe.each(backends)('node clocks on $name', (backend) => {
  const server = useServer(backend);
  const read = (runId: string, query: string) =>
    server.json(`/runs/${runId}/changes/c1/propagation?${query}`, {}, propagation);

  it('gives corrected percentiles with their clock error beside the raw ones', async () => {
    const run = await skewedRun(server);
    // The batch started the correction; a corrected read waits for it (a read computes
    // nothing itself), and raw reads after it carry the corrected brief.
    expect((await read(run.id, 'percentiles=50&clock=corrected')).status).toBe(200);
    const raw = await read(run.id, 'percentiles=50,99&withinMs=110');
    expect(raw.status).toBe(200);
    // Raw: -7, 50, 120, 220, 288, 992; P50 = rank 3, P99 = rank 6.
    expect(raw.body.percentiles.map((p) => p.ms)).toEqual([120, 992]);
    expect(raw.body.beforeChange).toBe(1);
    expect(raw.body.withinCount).toBe(2);
    const clock = raw.body.clock;
    expect(clock).toMatchObject({
      basis: 'raw',
      available: true,
      pending: false,
      maxClockErrorMs: 1,
      nodes: 4,
      correctedNodes: 3,
      uncorrectedNodes: 1,
    });
    // Corrected: 5, 50, 100, 200, 300, 1000 (c's within float rounding).
    const brief = clock?.corrected;
    expect(brief?.percentiles[0]).toMatchObject({
      p: 50,
      ms: 100,
      exact: false,
      method: 'clock-corrected',
      clockErrorMs: 1,
      lower: 99,
      upper: 101,
    });
    expect(brief?.percentiles[1]?.ms).toBeCloseTo(1000, 6);
    expect(brief).toMatchObject({ withinCount: 3, withinFraction: 0.5, beforeChange: 0, minMs: 5 });

    const corrected = await read(run.id, 'percentiles=50,99&withinMs=110&bins=2');
    expect(corrected.status).toBe(200);
    const c = await read(run.id, 'percentiles=50,99&withinMs=110&bins=2&clock=corrected');
    expect(c.body.clock?.basis).toBe('corrected');
    expect(c.body.minMs).toBe(5);
    expect(c.body.maxMs).toBeCloseTo(1000, 6);
    expect(c.body.beforeChange).toBe(0);
    expect(c.body.withinCount).toBe(3);
    expect(c.body.percentiles[0]).toMatchObject({ p: 50, ms: 100, clockErrorMs: 1 });
    // The histogram and CDF are of the corrected latencies: [5, 502.5) holds five.
    expect(c.body.histogram.map((b) => b.count)).toEqual([5, 1]);
    expect(c.body.count).toBe(6);

    const csv = await server.api(
      `/runs/${run.id}/changes/c1/propagation?format=csv&percentiles=50`,
    );
    const text = await csv.text();
    expect(text).toContain('percentile,p50,120,\n');
    expect(text).toContain('corrected-percentile,p50,100,1\n');
    expect(text).toContain('clock,uncorrectedNodes,1,\n');
  });

  it('says a correction not computed yet is pending, and the background worker computes it', async () => {
    const run = await skewedRun(server);
    await read(run.id, 'percentiles=50&clock=corrected');
    // The database refuses to store the run's corrected summaries from now on (a correction
    // that fails, or whose replica stopped; a batch may still mark them stale): a later batch
    // leaves the kept one stale.
    const db = server.app.database.db;
    const fn = `refuse_${run.id.replaceAll('-', '')}`;
    await db.execute(
      sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
        begin
          if new.run_id = '${run.id}' and new.clock = 'corrected'
             and new.clock_input_batch is not null then
            raise exception 'refused by the test';
          end if;
          return new;
        end $$`),
    );
    await db.execute(
      sql.raw(`create trigger ${fn} before insert or update on change_summaries
        for each row execute function ${fn}()`),
    );
    const more = [{ type: 'clock', node: 'd', at: at(0), offsetMs: -30, errorMs: 2 }];
    expect((await postEvents(server, run.id, ndjson(more))).status).toBe(200);
    // Raw: answered, the correction said to be pending, not computed by the read.
    const raw = await read(run.id, 'percentiles=50&withinMs=111');
    expect(raw.status).toBe(200);
    expect(raw.body.clock).toMatchObject({ available: true, pending: true, corrected: null });
    const refused = await server.json(
      `/runs/${run.id}/changes/c1/propagation?clock=corrected&percentiles=51`,
      {},
      apiError,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('clock_pending');
    // The tail: by default cut on the raw latencies, which it names; corrected asked, 409.
    const tail = await server.json(`/runs/${run.id}/changes/c1/tail?thresholdMs=100`);
    expect(tail.status).toBe(200);
    expect((tail.body as { clock: string }).clock).toBe('raw');
    const tailCorrected = await server.json(
      `/runs/${run.id}/changes/c1/tail?thresholdMs=100&clock=corrected`,
      {},
      apiError,
    );
    expect(tailCorrected.body.code).toBe('clock_pending');

    await db.execute(sql.raw(`drop trigger ${fn} on change_summaries`));
    await db.execute(sql.raw(`drop function ${fn}()`));
    expect(await server.app.correctStale(1000)).toBeGreaterThanOrEqual(1);
    const after = await read(run.id, 'percentiles=50&clock=corrected&withinMs=112');
    expect(after.status).toBe(200);
    // d's report is in: every node corrected.
    expect(after.body.clock).toMatchObject({
      pending: false,
      uncorrectedNodes: 0,
      correctedNodes: 4,
    });
  });

  it('lists node clocks, and the nodes provably behind', async () => {
    const run = await skewedRun(server);
    const { status, body } = await server.json(`/runs/${run.id}/clocks`, {}, runClocks);
    expect(status).toBe(200);
    expect(
      body.nodes.map((n) => [n.node, n.reports, n.minOffsetMs, n.maxOffsetMs, n.maxErrorMs]),
    ).toEqual([
      ['a', 1, 20, 20, 0.5],
      ['b', 1, -12, -12, 1],
      ['c', 2, -10, -6, 0.4],
    ]);
    // b's NTP report is at the midpoint of t2 and t3.
    expect(body.nodes[1]?.firstAt).toBe(at(R + 1).replace('Z', '000Z'));
    // b1's raw time is 7 ms before the change: b's clock was behind by at least 7 ms.
    expect(body.provablyBehind).toEqual([
      { node: 'b', behindByAtLeastMs: 7, change: 'c1', proxy: 'b1', hasReports: true },
    ]);
  });

  it('recomputes the corrected summary when a later batch brings reports', async () => {
    const run = await skewedRun(server);
    const before = await read(run.id, 'percentiles=50&clock=corrected');
    expect(before.body.clock?.uncorrectedNodes).toBe(1);
    // d was 30 ms behind: its proxy's raw 50 ms is 80 ms.
    const more = [{ type: 'clock', node: 'd', at: at(0), offsetMs: -30, errorMs: 2 }];
    expect((await postEvents(server, run.id, ndjson(more))).status).toBe(200);
    const after = await read(run.id, 'percentiles=50&clock=corrected');
    expect(after.body.clock).toMatchObject({
      uncorrectedNodes: 0,
      correctedNodes: 4,
      maxClockErrorMs: 2,
    });
    // Corrected: 5, 80, 100, ...: P50 (rank 3) is 100, min 5, and d's 80 is in.
    expect(after.body.percentiles[0]?.ms).toBe(100);
    expect(after.body.cdf.map((p) => p.ms)).toContain(80);
  });

  it('is computed when the run is finished, and exported as events the API takes again', async () => {
    const run = await skewedRun(server);
    const finished = await server.json(`/runs/${run.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'finished' }),
    });
    expect(finished.status).toBe(200);
    const first = await read(run.id, 'percentiles=50,99&clock=corrected');
    const again = await read(run.id, 'percentiles=50,99&clock=corrected');
    // Warm: the first read found it computed, the second reads the same kept summary.
    expect(first.body.computedAt).toBe(again.body.computedAt);

    const exported = await (await server.api(`/runs/${run.id}/events`)).text();
    const clockLines = exported
      .split('\n')
      .filter((l) => l.includes('"clock"'))
      .map((l) => JSON.parse(l));
    expect(clockLines).toHaveLength(4);
    expect(clockLines).toContainEqual({
      type: 'clock',
      node: 'b',
      at: at(R + 1).replace('Z', '000Z'),
      offsetMs: -12,
      errorMs: 1,
    });
    const copy = await createRun(server);
    expect((await postEvents(server, copy.id, exported)).status).toBe(200);
    const copied = await read(copy.id, 'percentiles=50,99&clock=corrected');
    expect(copied.body.percentiles).toEqual(first.body.percentiles);
    expect(copied.body.clock?.maxClockErrorMs).toBe(1);
  });

  it('ends as a recomputation whatever the interleaving of clock batches, observations and reads', async () => {
    // Batches of clock reports, new proxies and corrected reads all at once (four batches:
    // the default MESHBENCH_MAX_CONCURRENT_BATCHES refuses more with 503); the corrected
    // summary read last must equal that of a run given everything in one batch.
    const more = Array.from({ length: 40 }, (_, i) =>
      obs(`x${i}`, 'abcd'[i % 4] as string, 30 + 7 * i),
    );
    const batches = [
      ndjson(clockEvents.slice(0, 2)),
      ndjson([
        ...clockEvents.slice(2),
        { type: 'clock', node: 'd', at: at(0), offsetMs: -30, errorMs: 2 },
      ]),
      ndjson(more.slice(0, 20)),
      ndjson(more.slice(20)),
    ];
    const run = await createRun(server);
    await postEvents(server, run.id, ndjson([changeEvent, ...observations]));
    const sent = await Promise.all([
      ...batches.map((b) => postEvents(server, run.id, b)),
      ...[0, 1, 2].map(() => read(run.id, 'percentiles=50,99')),
    ]);
    expect(
      sent.map((s) => s.status),
      JSON.stringify(sent.map((s) => s.body)),
    ).toEqual(sent.map(() => 200));
    const whole = await createRun(server);
    await postEvents(
      server,
      whole.id,
      ndjson([
        changeEvent,
        ...observations,
        ...clockEvents,
        ...more,
        { type: 'clock', node: 'd', at: at(0), offsetMs: -30, errorMs: 2 },
      ]),
    );
    const q = 'percentiles=10,50,90,99&clock=corrected&bins=7';
    const [got, want] = [await read(run.id, q), await read(whole.id, q)];
    const strip = (b: typeof got.body) => ({ ...b, computedAt: null });
    expect(strip(got.body)).toEqual(strip(want.body));
    expect(got.body.count).toBe(46);
  });

  it('answers clock=corrected with 409 on a run without clock reports', async () => {
    const run = await createRun(server);
    await postEvents(server, run.id, ndjson([changeEvent, ...observations]));
    const raw = await read(run.id, 'percentiles=50');
    expect(raw.body.clock).toEqual({
      basis: 'raw',
      available: false,
      pending: false,
      maxClockErrorMs: null,
      nodes: null,
      correctedNodes: null,
      uncorrectedNodes: null,
      corrected: null,
    });
    const refused = await server.json(
      `/runs/${run.id}/changes/c1/propagation?clock=corrected`,
      {},
      apiError,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('no_clock_data');
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['no node', { type: 'clock', at: at(0), offsetMs: 1, errorMs: 1 }, 'node'],
    [
      'an offset without its error',
      { type: 'clock', node: 'a', at: at(0), offsetMs: 1 },
      'errorMs',
    ],
    ['an error without an offset', { type: 'clock', node: 'a', at: at(0), errorMs: 1 }, 'offsetMs'],
    ['neither form', { type: 'clock', node: 'a', at: at(0) }, 'offsetMs'],
    ['an offset without at', { type: 'clock', node: 'a', offsetMs: 1, errorMs: 1 }, 'at'],
    ['t1..t4 incomplete', { type: 'clock', node: 'a', t1: at(0), t2: at(1), t4: at(3) }, 't3'],
    [
      't4 before t1',
      { type: 'clock', node: 'a', t1: at(5), t2: at(6), t3: at(6), t4: at(1) },
      't4',
    ],
    [
      'a negative error',
      { type: 'clock', node: 'a', at: at(0), offsetMs: 1, errorMs: -1 },
      'errorMs',
    ],
    [
      'forms that disagree',
      // t1..t4 give -12 +/- 1 ms; the offset says +5 +/- 1.
      { ...clockEvents[1], offsetMs: 5, errorMs: 1 },
      'offsetMs',
    ],
  ];
  it.each(bad)(
    'refuses a clock line with %s: 400 naming line and field, nothing stored',
    async (_, line, field) => {
      const run = await createRun(server);
      const refused = await postEvents(
        server,
        run.id,
        ndjson([changeEvent, clockEvents[0], line]),
        {},
        apiError,
      );
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/^line 3: /);
      expect(refused.body).toMatchObject({ line: 3, field });
      const clocks = await server.json(`/runs/${run.id}/clocks`, {}, runClocks);
      expect(clocks.body.nodes).toEqual([]);
    },
  );

  it('takes both forms together when they agree, keeping the interval both allow', async () => {
    const run = await createRun(server);
    // t1..t4 give -12 +/- 1 ms; -11.5 +/- 1 overlaps it in [-12.5, -11]: -11.75 +/- 0.75.
    const both = { ...clockEvents[1], at: at(R), offsetMs: -11.5, errorMs: 1 };
    const posted = await postEvents(server, run.id, ndjson([both]), {}, ingestResult);
    expect(posted.status).toBe(200);
    const { body } = await server.json(`/runs/${run.id}/clocks`, {}, runClocks);
    expect(body.nodes).toMatchObject([{ node: 'b', minOffsetMs: -11.75, maxErrorMs: 0.75 }]);
    void jsonBody;
  });
});
