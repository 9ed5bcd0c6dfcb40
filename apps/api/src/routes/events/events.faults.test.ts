// Event uploads as real deployments treat them: clients that go away mid-body, clients that
// stall, more uploads than the server takes at once, and probes beside every proxy posting
// batches of one change at the same time. On both databases.

import { type Database, openDatabase } from '@meshbench/db';
import { propagation, run as runAnswer } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { SLOT_AFTER_BYTES } from '../../services/ingest.service.ts';
import {
  type Backend,
  backends,
  createRun,
  ndjson,
  postEvents,
  type TestServer,
  useServer,
} from '../../test/harness.ts';
import { headerOf, rawUpload, statusOf } from '../../test/raw-upload.ts';

const T0 = Date.parse('2026-02-01T10:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const change = (id: string) => ({
  type: 'change',
  id,
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: iso(0),
});
const obs = (c: string, proxy: string, ms: number) => ({
  type: 'observation',
  change: c,
  proxy,
  at: iso(ms),
});

/** The same backends, with a pool large enough for the test's own concurrency. */
const withPool = (backend: Backend, poolSize: number): Backend =>
  backend.name === 'postgres'
    ? { ...backend, open: () => openDatabase({ url: process.env.DATABASE_URL, poolSize }) }
    : backend;

/** A read that needs the database; it fails the test instead of hanging it. */
async function timedRead(server: TestServer, runId: string): Promise<number> {
  const started = performance.now();
  const response = await server.api(`/runs/${runId}/changes`, {
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  await response.text();
  return performance.now() - started;
}

/** The first `n` lines of a batch of change c1, as NDJSON text ending in a newline. */
const batchStart = (n: number) =>
  `${ndjson([change('c1'), ...Array.from({ length: n }, (_, i) => obs('c1', `p${i}`, i))])}\n`;

/** Postgres sessions of this database inside a transaction (an upload's COPY among them). */
async function openTransactions(database: Database): Promise<number> {
  if (database.kind !== 'postgres') return 0;
  const result = await database.db.execute(
    sql`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()
          and state in ('active', 'idle in transaction', 'idle in transaction (aborted)')`,
  );
  return (result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0;
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(backends)('aborted uploads on $name', (backend) => {
  let database: Database;
  const server = useServer({
    ...backend,
    open: async () => {
      database = await backend.open();
      return database;
    },
  });

  it('rolls an aborted upload back at once: the next request is served at once, every time', async () => {
    const run = await createRun(server);
    // More aborts than the pool has connections (4 in tests, 10 by default).
    for (let i = 0; i < 12; i++) {
      const upload = await rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
        token: server.token,
        contentLength: 50_000_000,
        start: batchStart(2000),
      });
      // On Postgres the batch's transaction is open and its COPY under way before the abort.
      if (database.kind === 'postgres')
        await waitFor('the upload to open its transaction', async () => {
          return (await openTransactions(database)) > 0;
        });
      else await new Promise((r) => setTimeout(r, 100));
      upload.abort();
      expect(await timedRead(server, run.id)).toBeLessThan(2000);
    }
    if (database.kind === 'postgres')
      await waitFor(
        'every transaction to end',
        async () => (await openTransactions(database)) === 0,
      );
    expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
    // And a whole batch after them is stored as ever.
    expect((await postEvents(server, run.id, batchStart(10))).body).toEqual({
      accepted: 11,
      duplicate: false,
    });
  });
  it('closes the connection of a request refused before its body arrived (401)', async () => {
    const run = await createRun(server);
    const refused = await rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
      token: '',
      contentLength: 5_000_000,
      start: batchStart(2000),
    });
    const response = await Promise.race([
      refused.response,
      new Promise<string>((r) => setTimeout(() => r('still open'), 3000)),
    ]);
    refused.abort();
    expect(statusOf(response)).toBe(401);
    expect(headerOf(response, 'connection')).toBe('close');
  });
});

describe.each(backends)('slow uploaders on $name', (backend) => {
  const server = useServer(backend, {
    MESHBENCH_BODY_TIMEOUT_MS: '1000',
    MESHBENCH_MAX_CONCURRENT_BATCHES: '2',
  });

  it('cuts a stalled body after the idle timeout, sheds batches past the limit, and serves reads meanwhile', async () => {
    const run = await createRun(server);
    // Past the 64 KiB a batch must bring before it takes a slot (SLOT_AFTER_BYTES).
    const start = batchStart(1000);
    expect(start.length).toBeGreaterThan(SLOT_AFTER_BYTES);
    const stalled = await Promise.all(
      [0, 1].map(() =>
        rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
          token: server.token,
          contentLength: 10_000_000,
          start,
        }),
      ),
    );
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 200));
    const third = await rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
      token: server.token,
      contentLength: 10_000_000,
      start,
    });
    await third.answered;
    const refused = await Promise.race([
      third.response,
      new Promise<string>((r) => setTimeout(() => r(''), 2000)),
    ]);
    third.abort();
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    if (backend.name === 'postgres') {
      // Both slots are taken by batches streaming into COPY (the database of tests has 4
      // connections): one more is refused.
      expect(statusOf(refused)).toBe(503);
      expect(headerOf(refused, 'retry-after')).toBe('1');
      expect(refused).toContain('MESHBENCH_MAX_CONCURRENT_BATCHES');
      expect(metrics).toMatch(/^meshbench_events_overloaded_total 1$/m);
    } else {
      // Embedded, a batch takes its slot once read whole: stalled bodies hold none, and the
      // third is not refused but cut by the idle timeout as they are.
      expect(statusOf(refused)).toBe(408);
      expect(metrics).toMatch(/^meshbench_events_overloaded_total 0$/m);
    }
    // Reads keep their connections while the stalled uploads hold theirs.
    for (let i = 0; i < 10; i++) expect(await timedRead(server, run.id)).toBeLessThan(1000);

    for (const upload of stalled) {
      const response = await upload.response; // the server closes the connection
      expect(statusOf(response)).toBe(408);
      expect(response).toContain('MESHBENCH_BODY_TIMEOUT_MS');
      expect(headerOf(response, 'connection')).toBe('close');
    }
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(5000);
    expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
    expect((await postEvents(server, run.id, batchStart(10))).status).toBe(200);
  });

  it("cuts any route's stalled body, not only an upload's", async () => {
    const started = Date.now();
    const stalled = await rawUpload(server.url, '/api/v1/runs', {
      token: server.token,
      contentType: 'application/json',
      contentLength: 1000,
      start: '{"benchmark":"b","scen',
    });
    const response = await stalled.response;
    expect(statusOf(response)).toBe(408);
    expect(response).toContain('body_timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('does not hold a slow reader of the body against the client: a trickle that never stops for long is taken', async () => {
    const run = await createRun(server);
    const body = batchStart(300);
    const upload = await rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
      token: server.token,
      contentLength: Buffer.byteLength(body),
      start: '',
    });
    // 3 s in all, never 1 s without a byte.
    const step = Math.ceil(body.length / 10);
    for (let from = 0; from < body.length; from += step) {
      upload.send(body.slice(from, from + step));
      await new Promise((r) => setTimeout(r, 300));
    }
    await upload.answered;
    upload.socket.end();
    const response = await upload.response;
    expect(statusOf(response)).toBe(200);
    expect(response).toContain('"accepted":301');
  });
});

/** Nearest rank: the smallest value with at least p % of the values at or below it. */
function nearestRank(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

describe.each(backends.map((b) => withPool(b, 12)))(
  'concurrent batches of one change on $name',
  (backend) => {
    let database: Database;
    const server = useServer(
      {
        ...backend,
        open: async () => {
          database = await backend.open();
          return database;
        },
      },
      { MESHBENCH_MAX_CONCURRENT_BATCHES: '16' },
    );

    /** The stored rows, read straight from the tables. */
    async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
      const result = await database.db.execute(query);
      return (result as unknown as { rows: T[] }).rows;
    }

    it('keeps summaries equal to a recomputation from the stored rows, whatever the interleaving', async () => {
      const run = await createRun(server);
      const N = 8;
      const PER_BATCH = 5000;
      const post = async (batches: string[]) => {
        const answers = await Promise.all(batches.map((b) => postEvents(server, run.id, b)));
        for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
      };
      for (let round = 0; round < 3; round++) {
        // Observations of c1 by proxies that overlap the next batch's, some earlier than
        // what another batch says, some later; lifecycle events of one phase whose
        // entities overlap the same way. In round 0 every batch declares c1, new to the run.
        await post(
          Array.from({ length: N }, (_, k) => {
            const lines: unknown[] = round === 0 ? [change('c1')] : [];
            for (let i = 0; i < PER_BATCH; i++) {
              const p = k * 3000 + i;
              lines.push(obs('c1', `p${p}`, ((p * 7919 + round * 104_729 + k * 31) % 5000) - 50));
            }
            for (let i = 0; i < 300; i++) {
              lines.push({
                type: 'lifecycle',
                phase: 'running',
                entity: `alloc-${k * 200 + i}`,
                at: iso(1000 + ((i * 37 + k * 11 + round * 5) % 997)),
              });
            }
            return ndjson(lines);
          }),
        );
      }
      // And batches that each bring a change of their own, counted on the run.
      await post(
        Array.from({ length: N }, (_, k) =>
          ndjson([change(`own-${k}`), obs(`own-${k}`, 'p0', 10 + k), obs('c1', `late-${k}`, k)]),
        ),
      );

      // Recomputed here from the stored rows: each proxy's first application of c1.
      const stored = await rows<{ proxy: string; at_us: string | number }>(
        sql`select proxy, (extract(epoch from at) * 1000000)::float8 as at_us
            from observations where run_id = ${run.id} and change_id = 'c1'`,
      );
      const first = new Map<string, number>();
      for (const r of stored) {
        const us = Number(r.at_us);
        const seen = first.get(r.proxy);
        if (seen === undefined || us < seen) first.set(r.proxy, us);
      }
      const latenciesMs = [...first.values()].map((us) => (us - T0 * 1000) / 1000);
      latenciesMs.sort((a, b) => a - b);
      const count = latenciesMs.length;
      expect(stored.length).toBe(3 * N * PER_BATCH + N);
      const { body } = await server.json(
        `/runs/${run.id}/changes/c1/propagation?percentiles=1,50,90,99,100`,
        {},
        propagation,
      );
      expect(body).toMatchObject({
        count,
        observations: stored.length,
        repeats: stored.length - count,
        beforeChange: latenciesMs.filter((l) => l < 0).length,
        minMs: latenciesMs[0],
        maxMs: latenciesMs[count - 1],
        percentiles: [1, 50, 90, 99, 100].map((p) => ({ p, ms: nearestRank(latenciesMs, p) })),
      });
      expect(body.meanMs as number).toBeCloseTo(latenciesMs.reduce((s, l) => s + l, 0) / count, 6);

      // The lifecycle phase: each entity's first arrival, as the timeline keeps them.
      const arrivals = await rows<{ entity: string; at_us: string | number }>(
        sql`select entity, (extract(epoch from at) * 1000000)::float8 as at_us
            from lifecycle_events where run_id = ${run.id} and phase = 'running'`,
      );
      const firstArrival = new Map<string, number>();
      for (const r of arrivals) {
        const us = Number(r.at_us);
        const seen = firstArrival.get(r.entity);
        if (seen === undefined || us < seen) firstArrival.set(r.entity, us);
      }
      const [phase] = await rows<{ entities: number; firsts: Uint8Array }>(
        sql`select entities, firsts from lifecycle_phases where run_id = ${run.id} and phase = 'running'`,
      );
      const firsts = Buffer.from(phase?.firsts ?? new Uint8Array());
      const kept = Array.from({ length: firsts.length / 8 }, (_, i) => firsts.readDoubleBE(i * 8));
      expect(phase?.entities).toBe(firstArrival.size);
      expect(kept).toEqual([...firstArrival.values()].sort((a, b) => a - b));
      const keptFirsts = await rows<{ n: number }>(
        sql`select count(*)::int as n from lifecycle_firsts where run_id = ${run.id} and phase = 'running'`,
      );
      expect(keptFirsts[0]?.n).toBe(firstArrival.size);

      // The run's count of changes: c1 once, and each batch's own.
      const changes = await rows<{ n: number }>(
        sql`select count(*)::int as n from changes where run_id = ${run.id}`,
      );
      expect(changes[0]?.n).toBe(1 + N);
      expect((await server.json(`/runs/${run.id}`, {}, runAnswer)).body.changes).toBe(1 + N);
    });
  },
);
