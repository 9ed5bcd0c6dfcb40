// On the embedded database a batch's observations are stored ahead of its transaction in
// bounded pieces (staged_event_batches): no read sees them before the batch commits, a batch
// refused after staging leaves none of its rows, and rows left by a stopped process go. What
// the batch keeps that it alone decides (the blocks of a change's first summary, its proxy
// fingerprints) is staged too, a bounded piece a statement, and taken by its transaction.
import type { Tx } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { visibleBlocks } from '../../repositories/latency-blocks.ts';
import { rowsOf } from '../../repositories/result-rows.ts';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

/** The most latency blocks and fingerprints one staging statement writes (events.repository). */
const STAGE_BLOCKS = 48;
const FINGERPRINT_PART = 65_536;

const T0 = '2026-02-01T10:00:00.000000Z';
const change = {
  type: 'change',
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: T0,
};
const obs = (change: string, i: number) => ({
  type: 'observation',
  change,
  proxy: `proxy-${i}-sidecar`,
  node: `node-${i % 100}`,
  at: new Date(Date.parse(T0) + 10 + (i % 1000)).toISOString(),
});

describe.each(backends.filter((b) => b.name === 'embedded'))(
  'staged batches on $name',
  (backend) => {
    const server = useServer(backend);
    const count = async (query: ReturnType<typeof sql>) => {
      const result = await server.app.database.db.execute(query);
      return Number((result as unknown as { rows: { n: unknown }[] }).rows[0]?.n);
    };

    it('a batch refused after its 20,000 observations were staged (unknown change) leaves none of its rows', async () => {
      const run = await createRun(server);
      const lines = Array.from({ length: 20_000 }, (_, i) => obs('nowhere', i));
      const { status, body } = await postEvents(server, run.id, ndjson(lines));
      expect(status, JSON.stringify(body)).toBe(422);
      expect(
        await count(sql`select count(*)::int as n from observations where run_id = ${run.id}`),
      ).toBe(0);
      expect(await count(sql`select count(*)::int as n from staged_event_batches`)).toBe(0);
    });

    /**
     * Records the COPY statements of every transaction on the database while `work` runs;
     * `afterEach(copies)` is awaited after each transaction ends, before its caller goes on.
     */
    async function recordingCopies<T>(
      work: () => Promise<T>,
      afterEach: (copies: { table: string; bytes: number }[]) => Promise<void> = async () => {},
    ): Promise<{ result: T; transactions: { table: string; bytes: number }[][] }> {
      const database = server.app.database;
      const original = database.transaction;
      const transactions: { table: string; bytes: number }[][] = [];
      database.transaction = async <R>(fn: (tx: Tx) => Promise<R>): Promise<R> => {
        const copies: { table: string; bytes: number }[] = [];
        transactions.push(copies);
        const result = (await original.call(database, (tx: Tx) =>
          fn({
            ...tx,
            async copy(table, columns, source, options) {
              const parts: (string | Uint8Array)[] = [];
              for await (const part of source) parts.push(part);
              copies.push({ table, bytes: parts.reduce((n, p) => n + p.length, 0) });
              return tx.copy(table, columns, parts, options);
            },
          }),
        )) as R;
        await afterEach(copies);
        return result;
      };
      try {
        return { result: await work(), transactions };
      } finally {
        database.transaction = original;
      }
    }

    it("a change's first 70,000 observations: its 69 latency blocks and 2 fingerprint parts are staged a bounded statement at a time, none written by the batch's transaction", async () => {
      const run = await createRun(server);
      const lines = [change, ...Array.from({ length: 70_000 }, (_, i) => obs('c1', i))];
      const { result, transactions } = await recordingCopies(() =>
        server.json(`/runs/${run.id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(lines),
        }),
      );
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      const kept = transactions.filter((t) =>
        t.some((c) => c.table === 'latency_blocks' || c.table === 'proxy_fingerprints'),
      );
      // Each of them alone in its transaction (no other statement holds the connection with
      // it), and each at most a bounded piece: 8 KB a block, 8 bytes a fingerprint.
      for (const copies of kept) {
        expect(copies).toHaveLength(1);
        const [{ table, bytes }] = copies as [{ table: string; bytes: number }];
        expect(bytes).toBeLessThan(
          table === 'latency_blocks' ? STAGE_BLOCKS * 8300 : FINGERPRINT_PART * 8 + 200,
        );
      }
      expect(kept.filter((t) => t[0]?.table === 'latency_blocks')).toHaveLength(2);
      expect(kept.filter((t) => t[0]?.table === 'proxy_fingerprints')).toHaveLength(2);

      const propagation = await server.json(`/runs/${run.id}/changes/c1/propagation`);
      expect(propagation.status).toBe(200);
      expect(propagation.body).toMatchObject({ count: 70_000, minMs: 10, maxMs: 1009 });
      expect(
        await count(
          sql`select count(*)::int as n from latency_blocks where run_id = ${run.id} and clock = 'raw'`,
        ),
      ).toBe(69);
      expect(
        await count(sql`select count(*)::int as n from latency_blocks where run_id = ${run.id}`),
      ).toBe(69);
    });

    /**
     * The rows written to latency_blocks while `work` runs, by transaction and operation, and
     * whether that transaction is a batch's own (it wrote the batch's event_batches row).
     */
    async function blockWrites<T>(
      work: () => Promise<T>,
    ): Promise<{ result: T; writes: { op: string; n: number; batchTx: boolean }[] }> {
      const db = server.app.database.db;
      await db.execute(sql`create table if not exists test_writes (xid int8, tbl text, op text)`);
      await db.execute(sql`truncate test_writes`);
      await db.execute(sql`create or replace function test_record_write() returns trigger
        language plpgsql as $$ begin
          insert into test_writes values (txid_current(), tg_table_name, tg_op); return null; end $$`);
      for (const table of ['latency_blocks', 'event_batches'])
        await db.execute(
          sql.raw(`create or replace trigger test_writes after insert or update or delete
            on ${table} for each row execute function test_record_write()`),
        );
      try {
        const result = await work();
        const writes = rowsOf<{ op: string; n: unknown; batch_tx: boolean }>(
          await db.execute(sql`select op, count(*)::int as n, exists (select 1 from test_writes b
              where b.xid = w.xid and b.tbl = 'event_batches') as batch_tx
            from test_writes w where tbl = 'latency_blocks' group by xid, op order by xid`),
        ).map((w) => ({ op: w.op, n: Number(w.n), batchTx: w.batch_tx }));
        return { result, writes };
      } finally {
        for (const table of ['latency_blocks', 'event_batches'])
          await db.execute(sql.raw(`drop trigger if exists test_writes on ${table}`));
        await db.execute(sql`drop table if exists test_writes`);
      }
    }

    const postJson = (runId: string, lines: unknown[]) =>
      server.json(`/runs/${runId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(lines),
      });

    it("a change's first 70,000 observations: the batch's transaction writes no latency block row (no relabel), and reads see the blocks only after it commits", async () => {
      const run = await createRun(server);
      const lines = [change, ...Array.from({ length: 70_000 }, (_, i) => obs('c1', i))];
      let whileStaged: { all: number; visible: number } | undefined;
      const { result, writes } = await blockWrites(() =>
        recordingCopies(
          () => postJson(run.id, lines),
          async (copies) => {
            // Blocks staged, the batch not committed: none of them is a summary's.
            if (whileStaged || !copies.some((c) => c.table === 'latency_blocks')) return;
            const blocks = sql`select count(*)::int as n from latency_blocks where run_id = ${run.id}`;
            whileStaged = {
              all: await count(blocks),
              visible: await count(sql`${blocks} and ${sql.raw(visibleBlocks())}`),
            };
          },
        ),
      );
      expect(result.result.status, JSON.stringify(result.result.body)).toBe(200);
      expect(whileStaged).toEqual({ all: STAGE_BLOCKS, visible: 0 });
      // Only the staging statements wrote blocks: inserts, a bounded piece a transaction;
      // the batch's transaction (which commits the summary) updated and deleted none.
      expect(writes).toEqual([
        { op: 'INSERT', n: STAGE_BLOCKS, batchTx: false },
        { op: 'INSERT', n: 69 - STAGE_BLOCKS, batchTx: false },
      ]);
      const propagation = await server.json(`/runs/${run.id}/changes/c1/propagation`);
      expect(propagation.body).toMatchObject({ count: 70_000, minMs: 10, maxMs: 1009 });
      expect(
        await count(sql`select count(*)::int as n from latency_blocks where run_id = ${run.id}`),
      ).toBe(69);
    });

    it("a change's second batch of 70,000 new proxies is merged and its 137 blocks staged ahead of its transaction, which writes none; the first batch's go after the commit; percentiles exact", async () => {
      const run = await createRun(server);
      const first = await postJson(run.id, [
        change,
        ...Array.from({ length: 70_000 }, (_, i) => obs('c1', i)),
      ]);
      expect(first.status).toBe(200);
      const read = () => server.json(`/runs/${run.id}/changes/c1/propagation?percentiles=50,90,99`);
      let whileStaged: unknown;
      const { result, writes } = await blockWrites(() =>
        recordingCopies(
          () =>
            postJson(
              run.id,
              Array.from({ length: 70_000 }, (_, i) => obs('c1', 70_000 + i)),
            ),
          async (copies) => {
            // Merged blocks staged, the batch not committed: reads see the first batch alone.
            if (whileStaged || !copies.some((c) => c.table === 'latency_blocks')) return;
            whileStaged = (await read()).body;
          },
        ),
      );
      expect(result.result.status, JSON.stringify(result.result.body)).toBe(200);
      expect(whileStaged).toMatchObject({ count: 70_000, observations: 70_000 });
      // Staged by inserts of a bounded piece; the first batch's 69 removed after the commit,
      // in bounded pieces; nothing written to latency_blocks by the batch's transaction.
      expect(writes.filter((w) => w.batchTx)).toEqual([]);
      expect(writes.filter((w) => w.op === 'INSERT').reduce((n, w) => n + w.n, 0)).toBe(137);
      expect(writes.filter((w) => w.op === 'DELETE').reduce((n, w) => n + w.n, 0)).toBe(69);
      expect(writes.filter((w) => w.op === 'UPDATE')).toEqual([]);
      for (const w of writes)
        expect(w.n).toBeLessThanOrEqual(w.op === 'INSERT' ? STAGE_BLOCKS : 96);
      // Latency of proxy i: 10 + i % 1000 ms, each value 140 times: nearest rank.
      const raw = (p: number, ms: number) => ({ p, ms, exact: true, method: 'raw' });
      expect((await read()).body).toMatchObject({
        count: 140_000,
        observations: 140_000,
        repeats: 0,
        minMs: 10,
        maxMs: 1009,
        percentiles: [raw(50, 509), raw(90, 909), raw(99, 999)],
      });
      expect(
        await count(sql`select count(*)::int as n from latency_blocks where run_id = ${run.id}`),
      ).toBe(137);
    });

    it('blocks no summary reads and no staged batch wrote (a process stopped after a commit) go when staged batches are discarded', async () => {
      const run = await createRun(server);
      const first = await postEvents(server, run.id, ndjson([change, obs('c1', 1), obs('c1', 2)]));
      expect(first.status).toBe(200);
      const db = server.app.database.db;
      // The first batch's blocks kept under an old batch id, as if its summary moved on.
      await db.execute(sql`insert into latency_blocks (run_id, change_id, stage, clock, batch_id, block_no, latencies)
        select run_id, change_id, stage, clock, batch_id + 1000000, block_no, latencies
        from latency_blocks where run_id = ${run.id}`);
      expect(await server.app.services.ingest.discardStagedBatches()).toBe(0);
      expect(
        await count(sql`select count(*)::int as n from latency_blocks where run_id = ${run.id}`),
      ).toBe(1);
      const propagation = await server.json(`/runs/${run.id}/changes/c1/propagation`);
      expect(propagation.body).toMatchObject({ count: 2 });
    });

    it('a batch refused after its kept state was staged (unknown change) leaves no block or fingerprint', async () => {
      const run = await createRun(server);
      const lines = [
        change,
        ...Array.from({ length: 3000 }, (_, i) => obs('c1', i)),
        obs('nowhere', 1),
      ];
      const { status, body } = await postEvents(server, run.id, ndjson(lines));
      expect(status, JSON.stringify(body)).toBe(422);
      for (const table of ['latency_blocks', 'proxy_fingerprints', 'change_summaries']) {
        expect(
          await count(
            sql`select count(*)::int as n from ${sql.identifier(table)} where run_id = ${run.id}`,
          ),
        ).toBe(0);
      }
      expect(await count(sql`select count(*)::int as n from staged_event_batches`)).toBe(0);
    });

    it('a first summary staged while another batch of the change commits is made again in the transaction, the other batch merged', async () => {
      const run = await createRun(server);
      const first = [change, ...Array.from({ length: 3000 }, (_, i) => obs('c1', i))];
      // The other batch: the same change, 500 proxies of its own and 500 of the first's.
      const other = [change, ...Array.from({ length: 1000 }, (_, i) => obs('c1', 2500 + i))];
      let otherAnswer: ReturnType<typeof postEvents> | undefined;
      const { result } = await recordingCopies(
        () => postEvents(server, run.id, ndjson(first)),
        async (copies) => {
          // The first batch's first staged block written: the other comes and goes (once;
          // its own transactions pass here too).
          if (otherAnswer || !copies.some((c) => c.table === 'latency_blocks')) return;
          otherAnswer = postEvents(server, run.id, ndjson(other));
          await otherAnswer;
        },
      );
      const otherStored = await otherAnswer;
      expect(otherStored?.status, JSON.stringify(otherStored?.body)).toBe(200);
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      const propagation = await server.json(`/runs/${run.id}/changes/c1/propagation`);
      expect(propagation.body).toMatchObject({ count: 3500, observations: 4000, repeats: 500 });
      expect(
        await count(sql`select count(*)::int as n from latency_blocks where run_id = ${run.id}`),
      ).toBe(4);
    });

    it('rows of a batch still staged are seen by no read, and go when staged batches are discarded', async () => {
      const run = await createRun(server);
      const first = await postEvents(server, run.id, ndjson([change, obs('c1', 1), obs('c1', 2)]));
      expect(first.status).toBe(200);
      // A batch staged between two committed ones, as a process killed while staging leaves it.
      const db = server.app.database.db;
      const idOf = async () =>
        count(sql`select nextval(pg_get_serial_sequence('event_batches', 'id'))::int as n`);
      const staged = await idOf();
      await db.execute(
        sql`insert into staged_event_batches (id, run_id) values (${staged}, ${run.id})`,
      );
      await db.execute(sql`insert into observations (run_id, change_id, proxy, at, batch_id)
      select ${run.id}, 'c1', 'staged-' || g, ${T0}::timestamptz + interval '5 ms', ${staged}
      from generate_series(1, 50) g`);
      const second = await postEvents(server, run.id, ndjson([obs('c1', 3)]));
      expect(second.status).toBe(200);

      const exported = await fetch(`${server.url}/api/v1/runs/${run.id}/events`);
      const text = await exported.text();
      expect(exported.status).toBe(200);
      expect(text.split('\n').filter((l) => l.includes('"observation"'))).toHaveLength(3);
      expect(text).not.toContain('staged-');

      expect(await server.app.services.ingest.discardStagedBatches()).toBe(1);
      expect(
        await count(sql`select count(*)::int as n from observations where batch_id = ${staged}`),
      ).toBe(0);
      expect(await count(sql`select count(*)::int as n from staged_event_batches`)).toBe(0);
    });

    it("discarding a staged batch leaves another run's rows at the same places of its own partition", async () => {
      // observations is partitioned by run (migration 0031): each run's partition starts at
      // page 0, so ctids repeat across runs. A discard by ctids alone deleted the other's rows.
      const kept = await createRun(server);
      const lines = Array.from({ length: 40 }, (_, i) => obs('c1', i));
      expect((await postEvents(server, kept.id, ndjson([change, ...lines]))).status).toBe(200);
      const keptRows = sql`select count(*)::int as n from observations where run_id = ${kept.id}`;
      expect(await count(keptRows)).toBe(40);

      const run = await createRun(server);
      const db = server.app.database.db;
      // Its partition, as a first batch staged through the API makes it.
      await db.execute(sql`select meshbench_run_partition(${run.id}, 'observations')`);
      const staged = await count(
        sql`select nextval(pg_get_serial_sequence('event_batches', 'id'))::int as n`,
      );
      await db.execute(
        sql`insert into staged_event_batches (id, run_id) values (${staged}, ${run.id})`,
      );
      await db.execute(sql`insert into observations (run_id, change_id, proxy, at, batch_id)
        select ${run.id}, 'c1', 'staged-' || g, ${T0}::timestamptz + interval '5 ms', ${staged}
        from generate_series(1, 30) g`);
      // The premise: the staged rows sit at ctids the kept run's rows have too.
      expect(
        await count(sql`select count(*)::int as n from observations a join observations b
          on a.ctid = b.ctid where a.run_id = ${run.id} and b.run_id = ${kept.id}`),
      ).toBe(30);

      expect(await server.app.services.ingest.discardStagedBatches()).toBe(1);
      expect(
        await count(sql`select count(*)::int as n from observations where run_id = ${run.id}`),
      ).toBe(0);
      expect(await count(keptRows)).toBe(40);
      const exported = await fetch(`${server.url}/api/v1/runs/${kept.id}/events`);
      const text = await exported.text();
      expect(exported.status).toBe(200);
      expect(text.split('\n').filter((l) => l.includes('"observation"'))).toHaveLength(40);
    });
  },
);
