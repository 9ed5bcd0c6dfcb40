// GET /runs/{id}/changes/{changeId}/perfetto through the real app on both databases: the
// trace decoded with the vendored upstream proto against slices worked out from the events.
import { apiError, createdToken, project as projectAnswer } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  backends,
  createRun,
  jsonBody,
  ndjson,
  postEvents,
  useServer,
} from '../../test/harness.ts';
import { decodeTrace, nsOf, tracksAndSlices } from '../../test/perfetto-trace.ts';

const T0 = '2026-02-01T10:00:00.000000Z';
const T0_US = Date.UTC(2026, 1, 1, 10) * 1000;
// A quote and a slash in the change id: it reaches SQL and a URL.
const CHANGE = "hey's/route";
const change = {
  type: 'change',
  id: CHANGE,
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: T0,
};
const obs = (proxy: string, node: string | undefined, at: string) => ({
  type: 'observation',
  change: CHANGE,
  proxy,
  ...(node ? { node } : {}),
  at,
});
const events = [
  change,
  obs('p1', 'n-a', '2026-02-01T10:00:00.100000Z'),
  obs('p1', 'n-a', '2026-02-01T10:00:05.000000Z'), // a repeat: the first one counts
  obs('p2', 'n-b', '2026-02-01T10:00:00.250501Z'),
  obs('p3', undefined, '2026-02-01T10:00:00.030000Z'),
  obs('p4', 'n-a', '2026-02-01T09:59:59.998000Z'), // 2 ms before the change
  { ...obs('q1', 'n-a', '2026-02-01T10:00:00.001000Z'), change: 'other' },
];

describe.each(backends)('GET /runs/{id}/changes/{changeId}/perfetto on $name', (backend) => {
  const server = useServer(backend);
  const path = (run: string, c = CHANGE) =>
    `/runs/${encodeURIComponent(run)}/changes/${encodeURIComponent(c)}/perfetto`;

  it('streams a trace: a track per node, a slice per proxy from the change', async () => {
    const run = await createRun(server);
    expect(
      (await postEvents(server, run.id, ndjson([{ ...change, id: 'other' }, ...events]))).status,
    ).toBe(200);
    const response = await server.api(path(run.id));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="run-${run.id}-change-hey_s_route.perfetto-trace"`,
    );
    const bytes = new Uint8Array(await response.arrayBuffer());
    const { tracks, slices } = tracksAndSlices(decodeTrace(bytes));

    const roots = tracks.filter((t) => t.parentUuid === undefined);
    expect(roots.map((t) => t.name)).toEqual([`change ${CHANGE}: endpoint hey delete`]);
    const nodes = tracks.filter((t) => t.parentUuid === roots[0]?.uuid);
    expect(nodes.map((t) => t.name).sort()).toEqual(['n-a', 'n-b', 'unknown node']);
    expect(tracks).toHaveLength(1 + 3 + 4); // root, nodes, proxies p1-p4

    expect(slices.sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual([
      {
        node: 'n-a',
        name: 'p1 applied',
        begin: nsOf(T0_US),
        end: nsOf(T0_US + 100_000),
        depth: 0,
      },
      {
        node: 'n-b',
        name: 'p2 applied',
        begin: nsOf(T0_US),
        end: nsOf(T0_US + 250_501),
        depth: 0,
      },
      {
        node: 'unknown node',
        name: 'p3 applied',
        begin: nsOf(T0_US),
        end: nsOf(T0_US + 30_000),
        depth: 0,
      },
      {
        node: 'n-a',
        name: 'p4 applied (before change)',
        begin: nsOf(T0_US - 2_000),
        end: nsOf(T0_US),
        depth: 0,
      },
    ]);

    // Sent gzipped to a client that takes it (fetch does, and decodes it), else as it is.
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const plain = await server.api(path(run.id), { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(new Uint8Array(await plain.arrayBuffer())).toEqual(bytes);

    // By the run's share slug, without a token, the same trace.
    const bySlug = await fetch(`${server.url}/api/v1${path(run.slug)}`);
    expect(new Uint8Array(await bySlug.arrayBuffer())).toEqual(bytes);
  });

  it('draws a slice per stage, nested longest first; no stage reads as applied', async () => {
    const run = await createRun(server);
    await postEvents(server, run.id, ndjson(events.slice(0, 2))); // p1 applied at +100 ms
    // Rows with a stage, written as SQL until the events API takes `stage`.
    await server.app.database.db.execute(sql`
      insert into observations (run_id, change_id, proxy, node, at, batch_id, stage)
      select ${run.id}::uuid, ${CHANGE}, 'p1', 'n-a', t::timestamptz, b.id, s
        from (values ('2026-02-01T10:00:00.040000Z', 'received'),
                     ('2026-02-01T10:00:00.070000Z', 'received'),
                     ('2026-02-01T10:00:00.300000Z', 'serving')) v(t, s),
             (select min(id) as id from event_batches where run_id = ${run.id}::uuid) b`);
    const response = await server.api(path(run.id));
    const { slices } = tracksAndSlices(decodeTrace(new Uint8Array(await response.arrayBuffer())));
    const slice = (name: string, ms: number, depth: number) => ({
      node: 'n-a',
      name,
      begin: nsOf(T0_US),
      end: nsOf(T0_US + ms * 1000),
      depth,
    });
    expect(slices.sort((a, b) => a.depth - b.depth)).toEqual([
      slice('p1 serving', 300, 0),
      slice('p1 applied', 100, 1),
      slice('p1 received', 40, 2), // the first of two
    ]);
  });

  it('answers 404 for a change the run does not have, before any byte of trace', async () => {
    const run = await createRun(server);
    const { status, body } = await server.json(path(run.id, 'nope'), undefined, apiError);
    expect(status).toBe(404);
    expect(body.message).toContain('"nope"');
    expect((await server.json(path('no-such-run'), undefined, apiError)).status).toBe(404);
  });

  it("refuses a private project's run without its token", async () => {
    const name = `perfetto-${Date.now()}`;
    const p = await server.json(
      '/projects',
      jsonBody({ name, visibility: 'private' }),
      projectAnswer,
    );
    const t = await server.json(
      `/projects/${p.body.id}/tokens`,
      jsonBody({ name: 'ci' }),
      createdToken,
    );
    const auth = { authorization: `Bearer ${t.body.token}` };
    const r = await server.json('/runs', {
      ...jsonBody({ benchmark: 'b', scenario: 's', mesh: { name: 'consul' } }),
      headers: { 'content-type': 'application/json', ...auth },
    });
    const id = (r.body as { id: string }).id;
    await postEvents(server, id, ndjson(events.slice(0, 3)), auth);
    const anonymous = await server.anonJson(path(id), undefined, apiError);
    expect(anonymous.status).toBe(401);
    const own = await fetch(`${server.url}/api/v1${path(id)}`, { headers: auth });
    expect(own.status).toBe(200);
    expect(
      tracksAndSlices(decodeTrace(new Uint8Array(await own.arrayBuffer()))).slices,
    ).toHaveLength(1);
  });
});
