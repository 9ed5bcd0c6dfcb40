import { apiError, CAUSE_DESCRIPTIONS, propagation, tail as tailAnswer } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = '2026-02-01T10:00:00.000000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const JUST_BEFORE_T0 = '2026-02-01T09:59:59.999999Z'; // t0 - 1 us
const JUST_AFTER_1800 = '2026-02-01T10:00:01.800001Z'; // t0 + 1800 ms + 1 us

const change = {
  type: 'change',
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: T0,
  expected: 16,
};
const obs = (proxy: string, node: string, ms: number, extra: Record<string, unknown> = {}) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  node,
  at: at(ms),
  ...extra,
});
const incident = (
  kind: string,
  where: { node?: string; proxy?: string },
  from: string,
  to?: string,
) => ({ type: 'incident', kind, ...where, from, ...(to ? { to } : {}) });

// 13 proxies apply c1 (first applications, ms): f1 100, f2 300, f3 800, f4 1000,
// s9 1200, s1 1500, s7 1800, s6 2000, s2 2500, s5 3000, s3 4000, s4 6000, s8 12000.
// Expected 16, so 3 never converged.
const batch = [
  change,
  obs('f1', 'n-a', 100),
  obs('f1', 'n-a', 5000), // a repeat: f1 stays fast (100 ms), never in the tail
  obs('f2', 'n-a', 300),
  obs('f3', 'n-b', 800),
  obs('f4', 'n-b', 1000), // exactly 1000 ms: not slower than 1000 ms
  // s1: the runner's cause wins over the proxy incident overlapping all of [0, 1500].
  obs('s1', 'n-a', 1500, { cause: 'reconnect-backoff' }),
  incident('packet-loss', { proxy: 's1', node: 'n-a' }, at(0), at(1500)),
  // s2: no cause, no proxy incident; node n-a had a leader election [2000, 3000] that
  // overlaps its interval [0, 2500] by 500 ms.
  obs('s2', 'n-a', 2500),
  incident('leader-election', { node: 'n-a' }, at(2000), at(3000)),
  // s3 (also on n-a): its own incident [3500, 3600] overlaps 100 ms, the node's 1000 ms;
  // proxy-level wins anyway.
  obs('s3', 'n-a', 4000),
  incident('tcp-retransmits', { proxy: 's3' }, at(3500), at(3600)),
  // s4: two incidents of its own; reconnect overlaps [2000, 5000] = 3000 ms, packet-loss
  // [-2000, 1000] only [0, 1000] = 1000 ms: the longest overlap wins.
  obs('s4', 'n-c', 6000),
  incident('packet-loss', { proxy: 's4', node: 'n-c' }, at(-2000), at(1000)),
  incident('reconnect', { proxy: 's4', node: 'n-c' }, at(2000), at(5000)),
  // s5: an incident ending exactly at the change still counts.
  obs('s5', 'n-d', 3000),
  incident('retry-backoff', { proxy: 's5' }, at(-5000), T0),
  // s6: an incident starting exactly at the observation counts.
  obs('s6', 'n-e', 2000),
  incident('reconnect', { proxy: 's6' }, at(2000), at(9000)),
  // s7: one incident ended 1 us before the change, one started 1 us after the
  // observation, a node incident ended before the change: unexplained.
  obs('s7', 'n-f', 1800),
  incident('reconnect', { proxy: 's7' }, at(-5000), JUST_BEFORE_T0),
  incident('packet-loss', { proxy: 's7' }, JUST_AFTER_1800, at(9000)),
  incident('leader-election', { node: 'n-f' }, at(-10_000), JUST_BEFORE_T0),
  // s8: the node's agent restarted at +500 ms and the incident is still open.
  obs('s8', 'n-g', 12_000),
  incident('agent-restart', { node: 'n-g' }, at(500)),
  // s9: its repeat (with a cause) comes first in the batch but is later: the first
  // application is 1200 ms with no cause, and nothing happened on n-h: unexplained.
  obs('s9', 'n-h', 1300, { cause: 'reconnect-backoff' }),
  obs('s9', 'n-h', 1200),
  // Noise: incidents elsewhere explain nobody.
  incident('packet-loss', { node: 'n-zzz' }, at(0), at(60_000)),
  incident('reconnect', { proxy: 'p-other', node: 'n-h' }, at(0), at(60_000)),
];
// A later batch: a slow proxy reporting again must not count twice.
const later = [obs('s8', 'n-g', 15_000), obs('s4', 'n-c', 7000, { cause: 'late-cause' })];

const pct = (a: number, b: number, c: number) => [
  { p: 50, ms: a, exact: true, method: 'raw' },
  { p: 90, ms: b, exact: true, method: 'raw' },
  { p: 99, ms: c, exact: true, method: 'raw' },
];
/** A cause row as the answer gives it: the name, its dictionary entry, the counts. */
const row = (cause: string, count: number, share: number, percentiles: unknown[]) => ({
  cause,
  description: CAUSE_DESCRIPTIONS[cause],
  described: true,
  count,
  share,
  percentiles,
});
const agentRestart = {
  kind: 'agent-restart',
  node: 'n-g',
  proxy: null,
  from: '2026-02-01T10:00:00.500000Z',
  to: null,
};

/**
 * Worked by hand for thresholdMs=1000. Tail (> 1000 ms, strictly): s9, s1, s7, s6, s2,
 * s5, s3, s4, s8 = 9 (f4 at 1000 is not slower). Never converged: 16 - 13 = 3.
 * share denominator 9 + 3 = 12.
 *   reconnect: s6 2000, s4 6000 -> P50 rank ceil(1.0)=1 -> 2000; P90 ceil(1.8)=2 -> 6000
 *   unexplained: s9 1200, s7 1800 -> 1200, 1800, 1800
 *   one each: reconnect-backoff s1 1500, leader-election s2 2500, retry-backoff s5 3000,
 *   tcp-retransmits s3 4000, agent-restart s8 12000
 * Sorted by count, then name.
 */
const expectedTail = {
  clock: 'raw',
  clockErrorMs: null,
  thresholdMs: 1000,
  thresholdP: null,
  cut: 'threshold',
  cutRule: 'thresholdMs',
  // 13 sorted latencies, P50 = rank ceil(6.5) = 7: 1800 ms.
  medianMs: 1800,
  applied: 13,
  tailCount: 9,
  neverConverged: 3,
  causes: [
    row('never-converged', 3, 3 / 12, []),
    row('reconnect', 2, 2 / 12, pct(2000, 6000, 6000)),
    row('unexplained', 2, 2 / 12, pct(1200, 1800, 1800)),
    row('agent-restart', 1, 1 / 12, pct(12000, 12000, 12000)),
    row('leader-election', 1, 1 / 12, pct(2500, 2500, 2500)),
    row('reconnect-backoff', 1, 1 / 12, pct(1500, 1500, 1500)),
    row('retry-backoff', 1, 1 / 12, pct(3000, 3000, 3000)),
    row('tcp-retransmits', 1, 1 / 12, pct(4000, 4000, 4000)),
  ],
  slowest: [
    { proxy: 's8', node: 'n-g', ms: 12000, cause: 'agent-restart', incident: agentRestart },
    {
      proxy: 's4',
      node: 'n-c',
      ms: 6000,
      cause: 'reconnect',
      incident: {
        kind: 'reconnect',
        node: 'n-c',
        proxy: 's4',
        from: '2026-02-01T10:00:02.000000Z',
        to: '2026-02-01T10:00:05.000000Z',
      },
    },
    {
      proxy: 's3',
      node: 'n-a',
      ms: 4000,
      cause: 'tcp-retransmits',
      incident: {
        kind: 'tcp-retransmits',
        node: null,
        proxy: 's3',
        from: '2026-02-01T10:00:03.500000Z',
        to: '2026-02-01T10:00:03.600000Z',
      },
    },
    {
      proxy: 's5',
      node: 'n-d',
      ms: 3000,
      cause: 'retry-backoff',
      incident: {
        kind: 'retry-backoff',
        node: null,
        proxy: 's5',
        from: '2026-02-01T09:59:55.000000Z',
        to: '2026-02-01T10:00:00.000000Z',
      },
    },
    {
      proxy: 's2',
      node: 'n-a',
      ms: 2500,
      cause: 'leader-election',
      incident: {
        kind: 'leader-election',
        node: 'n-a',
        proxy: null,
        from: '2026-02-01T10:00:02.000000Z',
        to: '2026-02-01T10:00:03.000000Z',
      },
    },
    {
      proxy: 's6',
      node: 'n-e',
      ms: 2000,
      cause: 'reconnect',
      incident: {
        kind: 'reconnect',
        node: null,
        proxy: 's6',
        from: '2026-02-01T10:00:02.000000Z',
        to: '2026-02-01T10:00:09.000000Z',
      },
    },
    { proxy: 's7', node: 'n-f', ms: 1800, cause: 'unexplained' },
    { proxy: 's1', node: 'n-a', ms: 1500, cause: 'reconnect-backoff' },
    { proxy: 's9', node: 'n-h', ms: 1200, cause: 'unexplained' },
  ],
};

describe.each(backends)('tail causes on $name', (backend) => {
  const server = useServer(backend);
  const tail = (runId: string, query = '') =>
    server.json(`/runs/${runId}/changes/c1/tail${query}`, {}, tailAnswer);

  async function seeded() {
    const run = await createRun(server);
    expect((await postEvents(server, run.id, ndjson(batch))).status).toBe(200);
    expect((await postEvents(server, run.id, ndjson(later))).status).toBe(200);
    return run;
  }

  it('assigns one cause per tail proxy, by the rules, worked by hand', async () => {
    const run = await seeded();
    // The propagation summary agrees on what a first application is: 13 proxies, 4 repeats.
    const summary = await server.json(
      `/runs/${run.id}/changes/c1/propagation?percentiles=50`,
      {},
      propagation,
    );
    expect(summary.body).toMatchObject({ count: 13, repeats: 4, missing: 3 });

    const { status, body } = await tail(run.id, '?thresholdMs=1000');
    expect(status).toBe(200);
    expect(body).toEqual(expectedTail);
    // The slug reads it too.
    expect((await tail(run.slug, '?thresholdMs=1000')).body).toEqual(expectedTail);
  });

  it('falls back to P95 when 1 s would put more than half the proxies in the tail', async () => {
    const run = await seeded();
    // Asked for nothing: 9 of the 13 (69 %) are slower than 1 s, the median (1800 ms) is
    // too. P95: rank ceil(12.35) = 13 -> 12000 ms, the maximum: nobody is slower.
    expect((await tail(run.id)).body).toEqual({
      clock: 'raw',
      clockErrorMs: null,
      thresholdMs: 12000,
      thresholdP: 95,
      cut: 'percentile',
      cutRule: 'fallback',
      medianMs: 1800,
      applied: 13,
      tailCount: 0,
      neverConverged: 3,
      causes: [row('never-converged', 3, 1, [])],
      slowest: [],
    });

    // 20 proxies at 1100, 1200, ..., 3000 ms: every one slower than 1 s. P50 = rank 10 ->
    // 2000 ms; P95 = rank 19 -> 2900 ms, so the tail is p20 alone (3000 ms).
    const all = await createRun(server);
    const { expected: _, ...noExpected } = change;
    const slow = Array.from({ length: 20 }, (_, i) =>
      obs(`p${i + 1}`, 'n-1', 1000 + 100 * (i + 1)),
    );
    await postEvents(server, all.id, ndjson([noExpected, ...slow]));
    const fallback = await tail(all.id);
    expect(fallback.body).toMatchObject({
      thresholdMs: 2900,
      thresholdP: 95,
      cut: 'percentile',
      cutRule: 'fallback',
      medianMs: 2000,
      applied: 20,
      tailCount: 1,
    });
    expect(fallback.body.slowest.map((s) => s.proxy)).toEqual(['p20']);
    // Asked for 1 s, it is 1 s: all 20, every one unexplained.
    expect((await tail(all.id, '?thresholdMs=1000')).body).toMatchObject({
      thresholdMs: 1000,
      thresholdP: null,
      cut: 'threshold',
      cutRule: 'thresholdMs',
      tailCount: 20,
      causes: [{ cause: 'unexplained', count: 20, share: 1 }],
    });

    // A median of exactly 1 s is not slower: 500, 1000, 1500 -> P50 = rank 2 -> 1000 ms, so
    // the default stands and the tail is the one proxy slower than 1 s.
    const edge = await createRun(server);
    await postEvents(
      server,
      edge.id,
      ndjson([noExpected, obs('a', 'n-1', 500), obs('b', 'n-1', 1000), obs('c', 'n-1', 1500)]),
    );
    expect((await tail(edge.id)).body).toMatchObject({
      thresholdMs: 1000,
      thresholdP: null,
      cut: 'threshold',
      cutRule: 'default',
      medianMs: 1000,
      applied: 3,
      tailCount: 1,
    });
  });

  it('describes the causes it knows and says so of those it does not', async () => {
    const run = await createRun(server);
    const { expected: _, ...noExpected } = change;
    await postEvents(
      server,
      run.id,
      ndjson([
        noExpected,
        obs('a', 'n-1', 100),
        obs('b', 'n-1', 200),
        obs('c', 'n-1', 300),
        obs('d', 'n-1', 1500, { cause: 'xds-push-queue' }),
        obs('e', 'n-1', 1600, { cause: 'reconnect' }),
      ]),
    );
    const { body } = await tail(run.id);
    expect(body.cutRule).toBe('default');
    expect(body.causes.map((c) => [c.cause, c.described, c.description])).toEqual([
      ['reconnect', true, CAUSE_DESCRIPTIONS.reconnect],
      ['xds-push-queue', false, 'no description: named by the runner'],
    ]);
    expect(CAUSE_DESCRIPTIONS.reconnect).toMatch(/^The proxy's agent lost its connection/);
  });

  it('cuts the slowest list at limit and takes other thresholds strictly', async () => {
    const run = await seeded();
    const limited = await tail(run.id, '?thresholdMs=1000&limit=3');
    expect((limited.body.slowest as { proxy: string }[]).map((s) => s.proxy)).toEqual([
      's8',
      's4',
      's3',
    ]);
    expect(limited.body.causes).toEqual(expectedTail.causes); // the table is never cut
    // > 2500 ms: s5 3000, s3 4000, s4 6000, s8 12000 (s2 at exactly 2500 is out);
    // denominator 4 + 3 = 7.
    const { body } = await tail(run.id, '?thresholdMs=2500');
    expect(body).toMatchObject({ thresholdMs: 2500, tailCount: 4, neverConverged: 3 });
    expect(
      (body.causes as { cause: string; count: number; share: number }[]).map((c) => [
        c.cause,
        c.count,
        c.share,
      ]),
    ).toEqual([
      ['never-converged', 3, 3 / 7],
      ['agent-restart', 1, 1 / 7],
      ['reconnect', 1, 1 / 7],
      ['retry-backoff', 1, 1 / 7],
      ['tcp-retransmits', 1, 1 / 7],
    ]);
  });

  it('takes the threshold from a nearest-rank percentile (thresholdP)', async () => {
    const run = await seeded();
    // 13 sorted latencies: 100 300 800 1000 1200 1500 1800 2000 2500 3000 4000 6000 12000.
    // P50: rank ceil(6.5) = 7 -> 1800 ms. Slower: s6 2000, s2 2500, s5 3000, s3 4000,
    // s4 6000, s8 12000 = 6; denominator 6 + 3 = 9.
    const p50 = await tail(run.id, '?thresholdP=50');
    expect(p50.status).toBe(200);
    expect(p50.body).toMatchObject({ thresholdMs: 1800, thresholdP: 50, tailCount: 6 });
    expect(p50.body.causes).toEqual([
      row('never-converged', 3, 3 / 9, []),
      row('reconnect', 2, 2 / 9, pct(2000, 6000, 6000)),
      row('agent-restart', 1, 1 / 9, pct(12000, 12000, 12000)),
      row('leader-election', 1, 1 / 9, pct(2500, 2500, 2500)),
      row('retry-backoff', 1, 1 / 9, pct(3000, 3000, 3000)),
      row('tcp-retransmits', 1, 1 / 9, pct(4000, 4000, 4000)),
    ]);
    // P90: rank ceil(11.7) = 12 -> 6000 ms; only s8 is slower. 1 + 3 = 4.
    const p90 = await tail(run.id, '?thresholdP=90');
    expect(p90.body).toMatchObject({ thresholdMs: 6000, tailCount: 1, neverConverged: 3 });
    expect(p90.body.slowest).toEqual([expectedTail.slowest[0]]);
    expect((p90.body.causes as { share: number }[]).map((c) => c.share)).toEqual([0.75, 0.25]);
    // P99: rank ceil(12.87) = 13 -> 12000 ms, the maximum: nobody is slower.
    const p99 = await tail(run.id, '?thresholdP=99');
    expect(p99.body).toEqual({
      clock: 'raw',
      clockErrorMs: null,
      thresholdMs: 12000,
      thresholdP: 99,
      cut: 'percentile',
      cutRule: 'thresholdP',
      medianMs: 1800,
      applied: 13,
      tailCount: 0,
      neverConverged: 3,
      causes: [row('never-converged', 3, 1, [])],
      slowest: [],
    });
  });

  it('gives the causes table as CSV', async () => {
    const run = await seeded();
    const csv = [
      'cause,count,share,p50Ms,p90Ms,p99Ms,clock',
      'never-converged,3,0.25,,,,raw',
      `reconnect,2,${2 / 12},2000,6000,6000,raw`,
      `unexplained,2,${2 / 12},1200,1800,1800,raw`,
      `agent-restart,1,${1 / 12},12000,12000,12000,raw`,
      `leader-election,1,${1 / 12},2500,2500,2500,raw`,
      `reconnect-backoff,1,${1 / 12},1500,1500,1500,raw`,
      `retry-backoff,1,${1 / 12},3000,3000,3000,raw`,
      `tcp-retransmits,1,${1 / 12},4000,4000,4000,raw`,
      '',
    ].join('\n');
    const byHeader = await server.api(`/runs/${run.id}/changes/c1/tail?thresholdMs=1000`, {
      headers: { accept: 'text/csv' },
    });
    expect(byHeader.status).toBe(200);
    expect(byHeader.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await byHeader.text()).toBe(csv);
    const byQuery = await server.api(`/runs/${run.id}/changes/c1/tail?thresholdMs=1000&format=csv`);
    expect(byQuery.headers.get('content-disposition')).toContain('tail-c1.csv');
    expect(await byQuery.text()).toBe(csv);
  });

  it('counts no never-converged proxies for a change without expected', async () => {
    const run = await createRun(server);
    const { expected: _, ...noExpected } = change;
    await postEvents(
      server,
      run.id,
      ndjson([noExpected, obs('a', 'n-1', 500), obs('b', 'n-1', 1500)]),
    );
    expect((await tail(run.id)).body).toEqual({
      clock: 'raw',
      clockErrorMs: null,
      thresholdMs: 1000,
      thresholdP: null,
      cut: 'threshold',
      cutRule: 'default',
      medianMs: 500,
      applied: 2,
      tailCount: 1,
      neverConverged: 0,
      causes: [row('unexplained', 1, 1, pct(1500, 1500, 1500))],
      slowest: [{ proxy: 'b', node: 'n-1', ms: 1500, cause: 'unexplained' }],
    });
    // A change nobody applied has no percentile to take a threshold from.
    const empty = await createRun(server);
    await postEvents(server, empty.id, ndjson([change]));
    expect((await tail(empty.id, '?thresholdP=99')).body).toEqual({
      clock: 'raw',
      clockErrorMs: null,
      thresholdMs: null,
      thresholdP: 99,
      cut: 'percentile',
      cutRule: 'thresholdP',
      medianMs: null,
      applied: 0,
      tailCount: 0,
      neverConverged: 16,
      causes: [row('never-converged', 16, 1, [])],
      slowest: [],
    });
  });

  it('answers 400 for bad parameters and 404 for an unknown run or change', async () => {
    const run = await seeded();
    const both = await server.json(
      `/runs/${run.id}/changes/c1/tail?thresholdMs=1000&thresholdP=99`,
      {},
      apiError,
    );
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ code: 'invalid_request', field: 'thresholdP' });
    expect(both.body.message).toContain('not both');
    for (const query of [
      '?thresholdP=0',
      '?thresholdP=100.5',
      '?thresholdMs=-1',
      '?thresholdMs=abc',
      '?limit=1001',
      '?limit=1.5',
      '?format=xml',
    ]) {
      expect((await tail(run.id, query)).status, query).toBe(400);
    }
    const noRun = await server.json(
      '/runs/00000000-0000-0000-0000-000000000000/changes/c1/tail',
      {},
      apiError,
    );
    expect(noRun.status).toBe(404);
    expect(noRun.body).toMatchObject({ code: 'not_found' });
    const noChange = await server.json(`/runs/${run.id}/changes/nope/tail`, {}, apiError);
    expect(noChange.status).toBe(404);
    expect(noChange.body.message).toContain('change "nope"');
  });
});
