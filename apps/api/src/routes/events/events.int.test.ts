import { gzipSync } from 'node:zlib';
import { apiError, changeList, ingestResult, propagation } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
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
  expected: 10,
};
const obs = (proxy: string, ms: number, extra: Record<string, unknown> = {}) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  node: `n-${proxy}`,
  at: at(ms),
  ...extra,
});

// First applications (ms): p9 -5 (skewed clock), 100, 200, 200, 300, 450, 800, 1000, 1500;
// p2 reports again at 900 (a repeat). Expected 10, so one proxy is missing.
const batch = [
  change,
  obs('p1', 100),
  obs('p2', 200),
  obs('p3', 200),
  obs('p4', 300),
  // The same instant as +450 ms, written with an offset.
  { ...obs('p5', 0), at: '2026-02-01T11:00:00.450+01:00' },
  obs('p6', 800, { cause: 'slow-node', attrs: { az: 'us-east-1a' } }),
  obs('p7', 1000),
  obs('p8', 1500),
  obs('p2', 900),
  obs('p9', -5),
];

/** Worked by hand from the batch above. */
const expectedSummary = {
  count: 9,
  observations: 10,
  expected: 10,
  missing: 1,
  beforeChange: 1,
  repeats: 1,
  minMs: -5,
  maxMs: 1500,
  meanMs: 505, // (-5+100+200+200+300+450+800+1000+1500) / 9 = 4545 / 9
  // nearest rank: P10 -> rank 1; P25 -> rank 3; P50 -> ceil(4.5)=5; P90 -> ceil(8.1)=9; P96 -> 9
  percentiles: [
    { p: 10, ms: -5 },
    { p: 25, ms: 200 },
    { p: 50, ms: 300 },
    { p: 90, ms: 1500 },
    { p: 96, ms: 1500 },
  ],
  withinMs: 1000,
  withinCount: 8,
  withinFraction: 0.8, // 8 of the 10 expected proxies within 1 s
  // 4 linear bins over [-5, 1500]: width 376.25
  histogram: [
    { fromMs: -5, toMs: 371.25, count: 5 },
    { fromMs: 371.25, toMs: 747.5, count: 1 },
    { fromMs: 747.5, toMs: 1123.75, count: 2 },
    { fromMs: 1123.75, toMs: 1500, count: 1 },
  ],
};
const QUERY = 'percentiles=10,25,50,90,96&bins=4';

describe.each(backends)('events and propagation on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_MAX_BATCH_BYTES: '300000' });

  const summary = (runId: string, query = QUERY) =>
    server.json(`/runs/${runId}/changes/c1/propagation?${query}`, {}, propagation);

  it('stores an NDJSON batch and reads the exact summary', async () => {
    const run = await createRun(server);
    const posted = await postEvents(server, run.id, ndjson(batch));
    expect(posted).toEqual({ status: 200, body: { accepted: 11, duplicate: false } });
    const { status, body } = await summary(run.id);
    expect(status).toBe(200);
    expect(body).toMatchObject(expectedSummary);
    expect(body.change).toMatchObject({ id: 'c1', at: T0, expected: 10 });
    const cdf = body.cdf as { ms: number; fraction: number }[];
    expect(cdf.at(-1)).toEqual({ ms: 1500, fraction: 0.9 }); // 9 of 10 expected ever applied it
  });

  it('takes a JSON array and a gzip body the same way', async () => {
    const a = await createRun(server);
    expect(
      (
        await server.json(`/runs/${a.id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(batch),
        })
      ).status,
    ).toBe(200);
    expect((await summary(a.id)).body).toMatchObject(expectedSummary);

    const b = await createRun(server);
    const gz = await postEvents(server, b.id, gzipSync(ndjson(batch)), {
      'content-encoding': 'gzip',
    });
    expect(gz.status).toBe(200);
    expect((await summary(b.id)).body).toMatchObject(expectedSummary);
  });

  it('stores a retried batch once (Idempotency-Key)', async () => {
    const run = await createRun(server);
    const key = { 'idempotency-key': 'batch-0001' };
    expect((await postEvents(server, run.id, ndjson(batch), key)).body).toEqual({
      accepted: 11,
      duplicate: false,
    });
    expect((await postEvents(server, run.id, ndjson(batch), key)).body).toEqual({
      accepted: 11,
      duplicate: true,
    });
    expect((await summary(run.id)).body).toMatchObject({ observations: 10, count: 9, repeats: 1 });
    // The same key on another body is a client bug, not a retry.
    const reused = await postEvents(server, run.id, ndjson(batch.slice(0, 3)), key, apiError);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    // Without a key, a second delivery is a second batch: repeats, not new proxies.
    await postEvents(server, run.id, ndjson(batch));
    expect((await summary(run.id)).body).toMatchObject({ observations: 20, count: 9, repeats: 11 });
  });

  it('takes a change whose time has more digits than microseconds again, unchanged', async () => {
    const run = await createRun(server);
    // Seven digits: stored to the microsecond; the same line sent again is the same change.
    const fine = { ...change, at: '2026-02-01T10:00:00.1234567Z' };
    const lines = ndjson([fine, obs('p1', 100)]);
    expect((await postEvents(server, run.id, lines)).status).toBe(200);
    const again = await postEvents(server, run.id, lines);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const sent = await server.json(`/runs/${run.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ ...fine, at: '2026-02-01T11:00:00.1234569+01:00' }]),
    });
    expect(sent.status).toBe(200);
    const changes = (await server.json(`/runs/${run.id}/changes`, {}, changeList)).body;
    expect(changes).toMatchObject([{ id: 'c1', at: '2026-02-01T10:00:00.123456Z' }]);
  });

  it('stores the lines of a source once, however they are cut, and says which are stored', async () => {
    const run = await createRun(server);
    const source = 'a'.repeat(64);
    const lines = [change, ...Array.from({ length: 9 }, (_, i) => obs(`p${i}`, i * 10))];
    const cut = <S extends z.ZodType = typeof ingestResult>(
      first: number,
      last: number,
      key?: string,
      schema: S = ingestResult as z.ZodType as S,
    ) =>
      server.json(
        `/runs/${run.id}/events?source=${source}&lines=${first}-${last}`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/x-ndjson',
            ...(key ? { 'idempotency-key': key } : {}),
          },
          body: ndjson(lines.slice(first - 1, last)),
        },
        schema,
      );
    expect((await cut(1, 4, 'k-1-4')).body).toEqual({ accepted: 4, duplicate: false });
    expect((await cut(1, 4, 'k-1-4')).body).toEqual({ accepted: 4, duplicate: true });
    expect((await cut(8, 10)).body).toEqual({ accepted: 3, duplicate: false });
    // Cut otherwise: any batch holding a stored line is refused whole, naming both.
    const overlap = await cut(3, 7, undefined, apiError);
    expect(overlap.status).toBe(409);
    expect(overlap.body).toMatchObject({ code: 'lines_already_stored', field: 'lines' });
    expect(overlap.body.message).toContain('lines 3-7');
    expect(overlap.body.message).toContain('lines 1-4');
    expect((await server.json(`/runs/${run.id}/events/sources/${source}`)).body).toEqual({
      source,
      lines: [
        [1, 4],
        [8, 10],
      ],
    });
    expect((await cut(5, 7)).body).toEqual({ accepted: 3, duplicate: false });
    expect((await server.json(`/runs/${run.id}/events/sources/${source}`)).body).toEqual({
      source,
      lines: [[1, 10]],
    });
    expect((await summary(run.id)).body).toMatchObject({ count: 9, observations: 9 });
    // Another source, or none, is another input.
    expect((await server.json(`/runs/${run.id}/events/sources/${'b'.repeat(64)}`)).body).toEqual({
      source: 'b'.repeat(64),
      lines: [],
    });
  });

  it("refuses a source's batch that does not hold the lines it names, naming lines by the source's numbers", async () => {
    const run = await createRun(server);
    // Every batch here is refused: its answer is the error shape.
    const post = (query: string, body: string, type = 'application/x-ndjson') =>
      server.json(
        `/runs/${run.id}/events?${query}`,
        { method: 'POST', headers: { 'content-type': type }, body },
        apiError,
      );
    const three = ndjson([change, obs('p1', 1), obs('p2', 2)]);
    const short = await post('source=s1&lines=1-4', three);
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ field: 'lines' });
    expect(short.body.message).toContain('lines 1-4 (4) but has 3');
    const bad = await post(
      'source=s1&lines=101-103',
      ndjson([change, obs('p1', 1), { ...obs('p2', 2), at: 'soon' }]),
    );
    expect(bad.body).toMatchObject({ statusCode: 400, line: 103, field: 'at' });
    expect((await post('source=s1', three)).status).toBe(400);
    expect((await post('lines=1-3', three)).status).toBe(400);
    expect((await post('source=s1&lines=3-1', three)).status).toBe(400);
    expect((await post('source=s%2F1&lines=1-3', three)).status).toBe(400);
    expect(
      (await post('source=s1&lines=1-1', JSON.stringify([change]), 'application/json')).status,
    ).toBe(400);
    expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
    expect((await server.json(`/runs/${run.id}/events/sources/s1`)).body).toEqual({
      source: 's1',
      lines: [],
    });
  });

  it('counts a proxy reporting again in a later batch as a repeat', async () => {
    const run = await createRun(server);
    await postEvents(server, run.id, ndjson([change, obs('p1', 100), obs('p2', 200)]));
    const second = await postEvents(server, run.id, ndjson([obs('p1', 50), obs('p3', 700)]));
    expect(second.status).toBe(200);
    // p1's first application is now the earlier one, at 50 ms.
    expect((await summary(run.id, 'percentiles=50,100')).body).toMatchObject({
      count: 3,
      observations: 4,
      repeats: 1,
      minMs: 50,
      percentiles: [
        { p: 50, ms: 200 },
        { p: 100, ms: 700 },
      ],
    });
  });

  it('merges a batch into a summary kept before there were proxy fingerprints', async () => {
    const run = await createRun(server);
    await postEvents(server, run.id, ndjson([change, obs('p1', 100), obs('p2', 200)]));
    // As a change summarised before fingerprints were kept: the batch must ask Postgres.
    await server.app.database.db.execute(
      sql`update change_summaries set proxies_fingerprinted = false where run_id = ${run.id}`,
    );
    await server.app.database.db.execute(
      sql`delete from proxy_fingerprints where run_id = ${run.id}`,
    );
    await postEvents(server, run.id, ndjson([obs('p2', 50), obs('p3', 300)]));
    await postEvents(server, run.id, ndjson([obs('p1', 400), obs('p4', 10)]));
    // First applications: p1 100, p2 50 (moved), p3 300, p4 10; 6 observations.
    expect((await summary(run.id, 'percentiles=25,100')).body).toMatchObject({
      count: 4,
      observations: 6,
      repeats: 2,
      percentiles: [
        { p: 25, ms: 10 },
        { p: 100, ms: 300 },
      ],
    });
  });

  it("keeps a change's summary exact over batches interleaved with another run's", async () => {
    const a = await createRun(server);
    const b = await createRun(server);
    await postEvents(server, a.id, ndjson([change, obs('p1', 100), obs('p2', 200)]));
    // Another run, the same change id and proxies, loaded between run a's batches.
    await postEvents(server, b.id, ndjson([change, obs('p1', 10), obs('p9', 20)]));
    const moves = ndjson([obs('p2', 150), obs('p3', 300), obs('p3', 50), obs('p4', 400)]);
    expect((await postEvents(server, a.id, moves)).status).toBe(200);
    expect((await postEvents(server, a.id, ndjson([obs('p1', 120), obs('p4', 390)]))).status).toBe(
      200,
    );
    // First applications: p1 100, p2 150 (moved), p3 50, p4 390 (moved); 8 observations.
    expect((await summary(a.id, 'percentiles=25,50,100')).body).toMatchObject({
      count: 4,
      observations: 8,
      repeats: 4,
      minMs: 50,
      maxMs: 390,
      percentiles: [
        { p: 25, ms: 50 },
        { p: 50, ms: 100 },
        { p: 100, ms: 390 },
      ],
    });
    expect((await summary(b.id, 'percentiles=100')).body).toMatchObject({
      count: 2,
      observations: 2,
      percentiles: [{ p: 100, ms: 20 }],
    });
  });

  it('accepts incidents and lifecycle events with the batch', async () => {
    const run = await createRun(server);
    const posted = await postEvents(
      server,
      run.id,
      ndjson([
        change,
        {
          type: 'incident',
          kind: 'reconnect',
          node: 'n-1',
          proxy: 'p1',
          from: at(10),
          to: at(5000),
        },
        { type: 'lifecycle', phase: 'running', entity: 'alloc-9', node: 'n-1', at: at(-1000) },
        obs('p1', 5100),
      ]),
    );
    expect(posted.body).toEqual({ accepted: 4, duplicate: false });
  });

  it('exports the events in one total order: by kind, then time, then the line itself', async () => {
    const run = await createRun(server);
    // Sent out of time order, with two observations and two clock reports at one instant
    // in reverse byte order: the export must not depend on the order rows were stored in.
    const clock = (node: string, ms: number) => ({
      type: 'clock',
      node,
      at: at(ms),
      offsetMs: 1,
      errorMs: 0.5,
    });
    await postEvents(
      server,
      run.id,
      ndjson([...batch, obs('pz', 250), obs('pa', 250), clock('n-b', 50), clock('n-a', 50)]),
    );
    const response = await server.api(`/runs/${run.id}/events`);
    expect(response.status).toBe(200);
    const lines = (await response.text()).trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as { type: string; at: string });
    const kinds = ['change', 'incident', 'lifecycle', 'observation', 'clock'];
    const sorted = lines
      .map((line, i) => ({ line, kind: kinds.indexOf(parsed[i]?.type ?? ''), t: parsed[i]?.at }))
      .sort(
        (x, y) =>
          x.kind - y.kind ||
          Date.parse(x.t ?? '') - Date.parse(y.t ?? '') ||
          (x.line < y.line ? -1 : x.line > y.line ? 1 : 0),
      )
      .map((x) => x.line);
    expect(lines).toEqual(sorted);
    expect(lines).toHaveLength(batch.length + 4);
    // The first observation is the earliest (p9, 5 ms before the change), sent last of them.
    expect(parsed[1]).toMatchObject({ type: 'observation', proxy: 'p9' });
  });

  it('gives the tables as CSV', async () => {
    const run = await createRun(server);
    await postEvents(server, run.id, ndjson(batch));
    const response = await server.api(`/runs/${run.id}/changes/c1/propagation?${QUERY}`, {
      headers: { accept: 'text/csv' },
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await response.text();
    expect(text).toContain('percentile,p96,1500,');
    expect(text).toContain('summary,withinFraction,0.8,');
    expect(text).toContain('histogram,-5,371.25,5');
  });

  describe('bad input: a 4xx naming line and field, and nothing stored', () => {
    const cases: [
      string,
      unknown[] | string,
      number,
      string,
      number | undefined,
      string | undefined,
    ][] = [
      [
        'malformed NDJSON line',
        `${JSON.stringify(change)}\n${JSON.stringify(obs('p1', 1))}\n{"type":"observation",\n`,
        400,
        'malformed_json',
        3,
        undefined,
      ],
      [
        'unknown event type',
        [change, { ...obs('p1', 1), type: 'observaton' }],
        400,
        'invalid_event',
        2,
        'type',
      ],
      [
        'missing field',
        [change, { type: 'observation', change: 'c1', at: at(1) }],
        400,
        'invalid_event',
        2,
        'proxy',
      ],
      [
        'field of the wrong type',
        [change, obs('p1', 1), { ...obs('p2', 1), proxy: 42 }],
        400,
        'invalid_event',
        3,
        'proxy',
      ],
      [
        'unknown field',
        [change, { ...obs('p1', 1), latencyMs: 3 }],
        400,
        'invalid_event',
        2,
        'latencyMs',
      ],
      [
        'at not RFC 3339',
        [change, { ...obs('p1', 1), at: '2026-02-01 10:00:00' }],
        400,
        'invalid_event',
        2,
        'at',
      ],
      [
        'at as epoch number',
        [change, { ...obs('p1', 1), at: 1769940000 }],
        400,
        'invalid_event',
        2,
        'at',
      ],
      [
        'at that is no date',
        [change, { ...obs('p1', 1), at: '2026-02-30T10:00:00Z' }],
        400,
        'invalid_event',
        2,
        'at',
      ],
      [
        'observation of an unknown change',
        [change, obs('p1', 1), { ...obs('p2', 1), change: 'nope' }],
        422,
        'unknown_change',
        3,
        'change',
      ],
      [
        'a change id twice with different content',
        [change, obs('p1', 1), { ...change, target: 'other' }],
        409,
        'change_conflict',
        3,
        'target',
      ],
      [
        'an incident that ends before it starts',
        [change, { type: 'incident', kind: 'reconnect', from: at(10), to: at(5) }],
        400,
        'invalid_event',
        2,
        'to',
      ],
    ];
    it.each(cases)('%s', async (_name, body, status, code, line, field) => {
      const run = await createRun(server);
      const posted = await postEvents(
        server,
        run.id,
        typeof body === 'string' ? body : ndjson(body),
        {},
        apiError,
      );
      expect(posted.status).toBe(status);
      expect(posted.body).toMatchObject({ statusCode: status, code });
      expect(posted.body.line).toBe(line);
      expect(posted.body.field).toBe(field);
      expect(posted.body.message).toContain(`line ${line}`);
      expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
    });

    it('rolls back a large batch failing at its last line', async () => {
      const run = await createRun(server);
      const lines: unknown[] = [change];
      for (let i = 0; i < 2000; i++) lines.push(obs(`p${i}`, i));
      lines.push({ ...obs('late', 1), at: 'never' });
      const posted = await postEvents(server, run.id, ndjson(lines), {}, apiError);
      expect(posted.status).toBe(400);
      expect(posted.body.line).toBe(2002);
      expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
      // The run is still usable: the same batch without the bad line goes in whole.
      const good = await postEvents(server, run.id, ndjson(lines.slice(0, -1)));
      expect(good.body).toEqual({ accepted: 2001, duplicate: false });
      expect((await summary(run.id, 'percentiles=50')).body).toMatchObject({ count: 2000 });
    });

    it('keeps a stored change and refuses a different one under its id', async () => {
      const run = await createRun(server);
      await postEvents(server, run.id, ndjson([change, obs('p1', 100)]));
      const c2 = { ...change, id: 'c2' };
      const conflict = await postEvents(
        server,
        run.id,
        ndjson([c2, { ...obs('p2', 1), change: 'c2' }, { ...change, at: at(1) }]),
      );
      expect(conflict.status).toBe(409);
      expect(conflict.body).toMatchObject({ code: 'change_conflict', line: 3, field: 'at' });
      const changes = (await server.json(`/runs/${run.id}/changes`, {}, changeList)).body;
      expect(changes.map((c) => c.id)).toEqual(['c1']);
      // Giving the stored change again unchanged is fine.
      expect((await postEvents(server, run.id, ndjson([change, obs('p2', 300)]))).status).toBe(200);
      expect((await summary(run.id, 'percentiles=50')).body).toMatchObject({ count: 2 });
    });

    it('refuses an observation of an unknown change after a stored one', async () => {
      const run = await createRun(server);
      await postEvents(server, run.id, ndjson([change]));
      const posted = await postEvents(
        server,
        run.id,
        ndjson([obs('p1', 1), { ...obs('p2', 1), change: 'c9' }]),
      );
      expect(posted.status).toBe(422);
      expect((await summary(run.id)).body).toMatchObject({ count: 0, observations: 0 });
    });

    it('answers 413 for a body over the limit', async () => {
      const run = await createRun(server);
      const lines: unknown[] = [change];
      for (let i = 0; i < 4000; i++) lines.push(obs(`proxy-${i}`, i));
      const posted = await postEvents(server, run.id, ndjson(lines), {}, apiError);
      expect(posted.status).toBe(413);
      expect(posted.body.code).toBe('body_too_large');
      expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
    });

    it('answers 413 for a gzip body that inflates over the limit', async () => {
      const run = await createRun(server);
      const padding = ' '.repeat(400_000);
      const posted = await postEvents(
        server,
        run.id,
        gzipSync(`${JSON.stringify(change)}${padding}\n`),
        { 'content-encoding': 'gzip' },
      );
      expect(posted.status).toBe(413);
    });

    it('answers 404 for an unknown run, 415 for other media, 400 for broken gzip and non-arrays', async () => {
      expect(
        (await postEvents(server, '00000000-0000-0000-0000-000000000000', ndjson([change]))).status,
      ).toBe(404);
      const run = await createRun(server);
      const text = await postEvents(server, run.id, ndjson([change]), {
        'content-type': 'text/plain',
      });
      expect(text.status).toBe(415);
      const gz = await postEvents(
        server,
        run.id,
        Buffer.from('not gzip at all'),
        { 'content-encoding': 'gzip' },
        apiError,
      );
      expect(gz.status).toBe(400);
      expect(gz.body.code).toBe('malformed_body');
      const notArray = await server.json(`/runs/${run.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(change),
      });
      expect(notArray.status).toBe(400);
      expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
    });

    it('answers 404 for an unknown change and 400 for bad summary parameters', async () => {
      const run = await createRun(server);
      expect((await server.json(`/runs/${run.id}/changes/nope/propagation`)).status).toBe(404);
      await postEvents(server, run.id, ndjson([change]));
      const bad = await server.json(
        `/runs/${run.id}/changes/c1/propagation?percentiles=50,abc`,
        {},
        apiError,
      );
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe('percentiles');
      expect((await server.json(`/runs/${run.id}/changes/c1/propagation?scale=cubic`)).status).toBe(
        400,
      );
    });
  });
});

describe.each(backends)('events at the default batch limit on $name', (backend) => {
  const server = useServer(backend);
  it('refuses a small gzip body of one endless line with a 413 naming the line', async () => {
    const run = await createRun(server);
    // 256 MiB of one line (the default limit) in 0.25 MiB of gzip.
    const endless = gzipSync(
      Buffer.concat([
        Buffer.from(`${JSON.stringify(change)}\n{"x":"`),
        Buffer.alloc(256 * 1024 * 1024 - 200, 'a'),
      ]),
      { level: 9 },
    );
    const posted = await postEvents(server, run.id, endless, { 'content-encoding': 'gzip' });
    expect(posted.status).toBe(413);
    expect(posted.body).toMatchObject({ code: 'line_too_large', line: 2 });
    expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
  });
});

describe.each(backends)('log histograms over skewed latencies on $name', (backend) => {
  const server = useServer(backend);
  it('start the log bins at the smallest positive latency', async () => {
    const run = await createRun(server);
    // Latencies -5, 10, 100, 1000 ms: one bin for the skewed one, then decades from 10 ms.
    await postEvents(
      server,
      run.id,
      ndjson([change, obs('a', -5), obs('b', 10), obs('c', 100), obs('d', 1000)]),
    );
    const { body } = await server.json(
      `/runs/${run.id}/changes/c1/propagation?scale=log&bins=3`,
      {},
      propagation,
    );
    expect(body.histogram.map((b) => [Math.round(b.fromMs), Math.round(b.toMs), b.count])).toEqual([
      [-5, 10, 1],
      [10, 100, 1],
      [100, 1000, 2],
    ]);
  });
});
