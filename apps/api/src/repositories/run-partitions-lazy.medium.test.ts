// A run's partitions made at its first write to each raw table (migration 0032), not with its
// row: a stored run has none; an events batch makes the observations one only; concurrent first
// writes make one; a run that is gone gets none; reads, deletion and retention of a run with
// some missing. On Postgres: a deletion waiting behind a long read lets other reads and writes
// of the table through (lockRetried) and finishes once the read ends; a batch's first incidents
// and lifecycle events make their partitions outside its transaction, so another run's first
// write there does not wait for the batch.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { RUN_PARTITIONED_TABLES, runPartitionName } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { backends, newRun, postEvents, useServices } from '../test/medium.ts';
import { lockKey } from './events.repository.ts';
import { rowsOf } from './result-rows.ts';
import { emptyRunRows, ensureRunPartitions, lockRetried } from './run-partitions.ts';
import { runsRepository } from './runs.repository.ts';

const T0 = '2026-02-01T10:00:00.000Z';
const audit = () => ({ id: randomUUID(), deletedBy: 'medium test' });

describe.each(backends)('run partitions on $name', (backend) => {
  const ctx = useServices(backend);
  /** The run's own partitions, by table. */
  const partitionsOf = async (runId: string) =>
    rowsOf<{ relname: string }>(
      await ctx.database.db.execute(sql`select relname from pg_class
        where relname like ${`%_r${runId.replaceAll('-', '')}`} and relispartition
        order by relname`),
    ).map((r) => r.relname);
  const count = async (table: string, runId: string) =>
    Number(
      rowsOf<{ n: unknown }>(
        await ctx.database.db.execute(
          sql`select count(*)::int as n from ${sql.identifier(table)} where run_id = ${runId}`,
        ),
      )[0]?.n,
    );

  it('a stored run has no partition; its first events batch makes the observations one only', async () => {
    const run = await newRun(ctx.services);
    expect(await partitionsOf(run.id)).toEqual([]);
    // Reads of every raw table of a run with no partition in it: no rows, no error.
    for (const table of RUN_PARTITIONED_TABLES) expect(await count(table, run.id)).toBe(0);
    await postEvents(ctx.services, run.id, [
      { type: 'change', id: 'c1', kind: 'endpoint', target: 't', action: 'add', at: T0 },
      { type: 'observation', change: 'c1', proxy: 'p1', at: '2026-02-01T10:00:00.100Z' },
    ]);
    expect(await partitionsOf(run.id)).toEqual([runPartitionName('observations', run.id)]);
    expect(await count('observations', run.id)).toBe(1);
    // A later batch with lifecycle events adds that table's partition.
    await postEvents(ctx.services, run.id, [
      { type: 'lifecycle', phase: 'joined', entity: 'node-0', at: T0 },
    ]);
    expect(await partitionsOf(run.id)).toEqual([
      runPartitionName('lifecycle_events', run.id),
      runPartitionName('observations', run.id),
    ]);
    expect(await count('lifecycle_events', run.id)).toBe(1);
  });

  it('makes a partition once however often asked, and none for a run that is gone', async () => {
    const run = await newRun(ctx.services);
    const db = ctx.database.db;
    await Promise.all(
      Array.from({ length: 6 }, () => ensureRunPartitions(db, [run.id], ['incidents'])),
    );
    await ensureRunPartitions(db, [run.id], ['incidents']);
    expect(await partitionsOf(run.id)).toEqual([runPartitionName('incidents', run.id)]);
    const gone = randomUUID();
    await ensureRunPartitions(db, [gone], RUN_PARTITIONED_TABLES);
    expect(await partitionsOf(gone)).toEqual([]);
  });

  it('deletes and empties a run that has some partitions and not others', async () => {
    const db = ctx.database.db;
    const runs = runsRepository(db);
    const [kept, dropped] = [await newRun(ctx.services), await newRun(ctx.services)];
    for (const run of [kept, dropped]) {
      await ensureRunPartitions(db, [run.id], ['observations']);
      await db.execute(sql`insert into observations (run_id, change_id, proxy, at, batch_id)
        select ${run.id}, 'c1', 'p' || g, ${T0}::timestamptz, 1 from generate_series(1, 7) g`);
    }
    const emptied: Record<string, number> = {};
    await lockRetried(db, 'run', async (tx) => {
      for (const table of RUN_PARTITIONED_TABLES)
        emptied[table] = await emptyRunRows(tx, table, kept.id, 'truncate');
    });
    expect(emptied).toEqual(
      Object.fromEntries(RUN_PARTITIONED_TABLES.map((t) => [t, t === 'observations' ? 7 : 0])),
    );
    expect(await partitionsOf(kept.id)).toEqual([runPartitionName('observations', kept.id)]);
    const gone = await runs.delete(dropped.id, audit());
    for (const table of RUN_PARTITIONED_TABLES)
      expect(gone?.rows[table], table).toBe(table === 'observations' ? 7 : 0);
    expect(await partitionsOf(dropped.id)).toEqual([]);
  });

  it.runIf(backend.name === 'postgres')(
    'runs inserted and first written at once, many to one run, do not deadlock',
    async () => {
      const db = ctx.database.db;
      const shared = await newRun(ctx.services);
      const tables = [...RUN_PARTITIONED_TABLES];
      await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const own = await newRun(ctx.services);
          // Each its tables in another order: the function takes them in one order anyway.
          const mine = i % 2 === 0 ? tables : [...tables].reverse();
          await ensureRunPartitions(db, [own.id, shared.id], mine.slice(0, 2 + (i % 4)));
          return own;
        }),
      );
      expect((await partitionsOf(shared.id)).sort()).toEqual(
        RUN_PARTITIONED_TABLES.map((t) => runPartitionName(t, shared.id)).sort(),
      );
    },
    120_000,
  );

  it.runIf(backend.name === 'postgres')(
    'a deletion waiting behind a long read holds no other read or write of the table',
    async () => {
      const db = ctx.database.db;
      const [doomed, other] = [await newRun(ctx.services), await newRun(ctx.services)];
      for (const run of [doomed, other]) {
        await ensureRunPartitions(db, [run.id], ['observations']);
        await db.execute(sql`insert into observations (run_id, change_id, proxy, at, batch_id)
          select ${run.id}, 'c1', 'p' || g, ${T0}::timestamptz, 1 from generate_series(1, 5) g`);
      }
      const url = process.env.DATABASE_URL as string;
      const clients = [new pg.Client(url), new pg.Client(url), new pg.Client(url)];
      await Promise.all(clients.map((c) => c.connect()));
      const [long, reader, writer] = clients as [pg.Client, pg.Client, pg.Client];
      try {
        // A long read of the table (another run's rows): ACCESS SHARE on the parent until it ends.
        await long.query('begin');
        await long.query('select count(*) from observations where run_id = $1', [other.id]);
        const deleting = runsRepository(db).delete(doomed.id, audit());
        // Until the deletion waits for the parent (its drop of the run's partition).
        const waiting = async () =>
          rowsOf<{ n: number }>(
            await reader.query(`select count(*)::int as n from pg_locks l
              join pg_class c on c.oid = l.relation
              where c.relname = 'observations' and l.mode = 'AccessExclusiveLock' and not l.granted`),
          )[0]?.n === 1;
        for (let i = 0; i < 1_000 && !(await waiting()); i++) await sleep(10);
        const t = performance.now();
        const both = Promise.all([
          reader.query('select count(*)::int as n from observations where run_id = $1', [other.id]),
          writer.query(
            `insert into observations (run_id, change_id, proxy, at, batch_id)
             values ($1, 'c1', 'late', $2, 2)`,
            [other.id, T0],
          ),
        ]);
        const done = await Promise.race([both.then(() => true), sleep(5_000).then(() => false)]);
        const ms = performance.now() - t;
        // Before lockRetried the deletion queued them behind it until the long read ended.
        expect(done, `reads and writes waited ${ms.toFixed(0)} ms behind the deletion`).toBe(true);
        await long.query('commit');
        const gone = await deleting;
        expect(gone?.rows.observations).toBe(5);
        expect(await partitionsOf(doomed.id)).toEqual([]);
        expect(await count('observations', other.id)).toBe(6);
      } finally {
        await long.query('rollback').catch(() => {});
        await Promise.all(clients.map((c) => c.end()));
      }
    },
    60_000,
  );

  /**
   * Runs `write` (a batch with incidents, lifecycle events and a clock report) while a
   * connection of the test holds the clock lock of `held`: the batch's transaction stops
   * there, after its incidents and lifecycle events are written. Meanwhile, what is visible
   * to others and whether another run's first incidents and lifecycle events wait for it.
   */
  async function whileHeldAtClocks(held: string, write: () => Promise<unknown>) {
    const url = process.env.DATABASE_URL as string;
    const [holder, other] = [new pg.Client(url), new pg.Client(url)];
    await Promise.all([holder.connect(), other.connect()]);
    try {
      await holder.query('begin');
      const key = String(lockKey(held, 'clocks', ''));
      await holder.query('select pg_advisory_xact_lock($1::int8)', [key]);
      const writing = write();
      writing.catch(() => {});
      // An int8 advisory key is held as its high and low 32 bits (classid, objid).
      const waiting = async () =>
        rowsOf<{ n: number }>(
          await other.query(
            `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted
               and database = (select oid from pg_database where datname = current_database())
               and (classid::int8 << 32) | objid::int8 = $1::int8`,
            [key],
          ),
        )[0]?.n === 1;
      for (let i = 0; i < 1_000 && !(await waiting()); i++) await sleep(10);
      expect(await waiting(), 'the batch waits at its clock reports').toBe(true);
      const seen = await partitionsOf(held);
      // Another run's first incidents and lifecycle events, on a connection that waits at
      // most 3 s for a lock: before, they waited for the parents' locks until the batch ended.
      const another = await newRun(ctx.services);
      await other.query(`set lock_timeout = '3s'`);
      await other.query(
        `select meshbench_run_partition($1, 'incidents'), meshbench_run_partition($1, 'lifecycle_events')`,
        [another.id],
      );
      await holder.query('rollback');
      await writing;
      return { seen, another: await partitionsOf(another.id) };
    } finally {
      await holder.query('rollback').catch(() => {});
      await Promise.all([holder.end(), other.end()]);
    }
  }

  /** A batch's incidents, lifecycle events and clock reports: its first of each. */
  const FIRST_WRITES = [
    { type: 'incident', kind: 'restart', node: 'n-1', from: T0 },
    { type: 'lifecycle', phase: 'joined', entity: 'node-0', at: T0 },
    { type: 'clock', node: 'n-1', at: T0, offsetMs: 1, errorMs: 0.5 },
  ];

  it.runIf(backend.name === 'postgres')(
    "a streamed batch's first incidents and lifecycle events make their partitions outside its transaction",
    async () => {
      const run = await newRun(ctx.services);
      const { seen, another } = await whileHeldAtClocks(run.id, () =>
        postEvents(ctx.services, run.id, FIRST_WRITES),
      );
      // Made and committed before the batch reached its clock reports, its rows not yet visible.
      expect(seen).toEqual(
        ['incidents', 'lifecycle_events', 'observations'].map((t) => runPartitionName(t, run.id)),
      );
      expect(another).toHaveLength(2);
      expect(await count('incidents', run.id)).toBe(1);
      expect(await count('lifecycle_events', run.id)).toBe(1);
    },
    60_000,
  );

  it.runIf(backend.name === 'postgres')(
    'batches of several runs stored together make every partition before their transaction',
    async () => {
      const [a, b] = [await newRun(ctx.services), await newRun(ctx.services)];
      const batch = (runId: string) => {
        const text = FIRST_WRITES.map((e) => JSON.stringify(e)).join('\n');
        return {
          runRef: runId,
          input: {
            body: (async function* () {
              yield Buffer.from(text);
            })(),
            format: 'ndjson' as const,
            digest: () => text,
          },
        };
      };
      // The later of the two in the transaction's order (run id order) is held at its clocks.
      const [first, last] = [a.id, b.id].sort() as [string, string];
      const { seen, another } = await whileHeldAtClocks(last, () =>
        ctx.services.ingest.ingestTogether([batch(a.id), batch(b.id)]),
      );
      expect(seen).toEqual(
        ['incidents', 'lifecycle_events', 'observations'].map((t) => runPartitionName(t, last)),
      );
      expect(another).toHaveLength(2);
      for (const id of [first, last]) {
        expect(await count('incidents', id)).toBe(1);
        expect(await count('lifecycle_events', id)).toBe(1);
      }
    },
    60_000,
  );
});
