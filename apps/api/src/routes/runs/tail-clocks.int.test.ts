// A change's tail and its attribution on a run whose nodes report their clocks: the tail is cut
// and ranked on corrected latencies (raw on request), and every answer says which. Worked by
// hand in the comments.
import { apiError, tail, tailAttribution } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = Date.parse('2026-02-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/**
 * Four nodes of ten proxies, 40 in all. Node "lag" (zone a) runs 130 ms behind (offset -130
 * ms, error 1 ms, reported before and after the change); the others report nothing (raw).
 * True latencies: lag 1,050 + 10 i ms (i = 0..9: 1,050 ... 1,140), all over 1 s, but its clock
 * writes them 130 ms early (920 ... 1,010): raw, only one is over 1 s. Node n2 (zone b): three
 * at 1,005, 1,010, 1,015 ms, seven at 100. Nodes n1 (zone a) and n3 (zone c): all at 100 ms.
 */
function events() {
  const out: unknown[] = [
    {
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'web',
      action: 'add',
      at: at(0),
      expected: 40,
    },
    { type: 'clock', node: 'lag', at: at(-1000), offsetMs: -130, errorMs: 1 },
    { type: 'clock', node: 'lag', at: at(5000), offsetMs: -130, errorMs: 1 },
  ];
  const obs = (proxy: string, node: string, az: string, trueMs: number, offsetMs = 0) => ({
    type: 'observation',
    change: 'c1',
    proxy,
    node,
    at: at(trueMs + offsetMs),
    attrs: { az },
  });
  for (let i = 0; i < 10; i++) {
    out.push(obs(`lag-${i}`, 'lag', 'a', 1050 + 10 * i, -130));
    out.push(obs(`n1-${i}`, 'n1', 'a', 100));
    out.push(obs(`n2-${i}`, 'n2', 'b', i < 3 ? 1005 + 5 * i : 100));
    out.push(obs(`n3-${i}`, 'n3', 'c', 100));
  }
  return out;
}

describe.each(backends)('the tail on corrected clocks on $name', (backend) => {
  const server = useServer(backend);

  it('ranks the node whose clock hid its slowness, and says the latencies are corrected', async () => {
    const run = await createRun(server);
    expect((await postEvents(server, run.id, ndjson(events()))).status).toBe(200);
    const attribution = (query: string) =>
      server.json(`/runs/${run.id}/changes/c1/tail/attribution?${query}`, {}, tailAttribution);

    // Corrected, over 1 s: lag's 10 and n2's 3, 13 of 40. minTailCount max(3, ceil(0.65)) = 3.
    // Excess share x tailCount x total = inTail x 40 - overall x 13: node lag 10 x 40 - 10 x
    // 13 = 270; az a (lag and n1) 10 x 40 - 20 x 13 = 140; az b and node n2 3 x 40 - 10 x 13 =
    // -10 each (lift (3/13) / (10/40), tied: by name, az first).
    const corrected = await attribution('thresholdMs=1000');
    expect(corrected.status).toBe(200);
    expect(corrected.body).toMatchObject({
      clock: 'corrected',
      clockErrorMs: 1,
      tailCount: 13,
      total: 40,
    });
    expect(corrected.body.values.map((v) => [v.attribute, v.value, v.inTail, v.overall])).toEqual([
      ['node', 'lag', 10, 10],
      ['az', 'a', 10, 20],
      ['az', 'b', 3, 10],
      ['node', 'n2', 3, 10],
    ]);
    expect(corrected.body.values[0]?.lift).toBeCloseTo(40 / 13, 12);

    // Raw, as before: lag has one proxy over 1 s (1,010), below the floor of 3; n2 and zone b
    // lead.
    const raw = await attribution('thresholdMs=1000&clock=raw');
    expect(raw.body).toMatchObject({ clock: 'raw', clockErrorMs: null, tailCount: 4 });
    expect(raw.body.values.map((v) => [v.attribute, v.value])).toEqual([
      ['az', 'b'],
      ['node', 'n2'],
    ]);

    // A percentile cut on corrected latencies: sorted, 27 at 100 ms, then 1,005, 1,010, 1,015
    // (ranks 28-30), then lag's ten. P75 is rank 30: 1,015 ms; the tail is lag's ten.
    const p75 = await attribution('thresholdP=75');
    expect(p75.body).toMatchObject({ clock: 'corrected', thresholdMs: 1015, tailCount: 10 });
    expect(p75.body.values[0]).toMatchObject({ attribute: 'node', value: 'lag', inTail: 10 });

    // The causes table: the same 13, their latencies corrected (lag's slowest 1,140 ms).
    const t = await server.json(`/runs/${run.id}/changes/c1/tail?thresholdMs=1000`, {}, tail);
    expect(t.body).toMatchObject({ clock: 'corrected', clockErrorMs: 1, tailCount: 13 });
    expect(t.body.slowest[0]).toMatchObject({ proxy: 'lag-9', node: 'lag' });
    expect(t.body.slowest[0]?.ms).toBeCloseTo(1140, 6);
    const rawTail = await server.json(
      `/runs/${run.id}/changes/c1/tail?thresholdMs=1000&clock=raw`,
      {},
      tail,
    );
    expect(rawTail.body).toMatchObject({ clock: 'raw', tailCount: 4 });
    expect(rawTail.body.slowest[0]).toMatchObject({ proxy: 'n2-2', ms: 1015 });

    const csv = await server.api(`/runs/${run.id}/changes/c1/tail?thresholdMs=1000&format=csv`);
    const [header, first] = (await csv.text()).split('\n');
    expect(header).toBe('cause,count,share,p50Ms,p90Ms,p99Ms,clock');
    expect(first).toMatch(/^unexplained,13,1,.*,corrected$/);
  });

  it('reads raw latencies on a run without clock reports, and refuses corrected ones', async () => {
    const run = await createRun(server);
    const noClocks = events().filter((e) => (e as { type: string }).type !== 'clock');
    expect((await postEvents(server, run.id, ndjson(noClocks))).status).toBe(200);
    const a = await server.json(
      `/runs/${run.id}/changes/c1/tail/attribution?thresholdMs=1000`,
      {},
      tailAttribution,
    );
    expect(a.body).toMatchObject({ clock: 'raw', clockErrorMs: null, tailCount: 4 });
    const refused = await server.json(
      `/runs/${run.id}/changes/c1/tail?clock=corrected`,
      {},
      apiError,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/no clock reports/);
  });
});
