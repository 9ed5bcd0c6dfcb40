// Migration 0031 on a database with rows: migrated to 0030, given two runs' rows (and a row
// of no run) in each raw table, then migrated on. Every row is kept, unchanged, in the
// partition of the runs stored before 0031; a run stored after gets a partition of its own in
// each table at its first write there (0032), a run stored before does not; deleting a run drops its own partitions, or deletes its rows from the shared one.
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Database,
  migrateDatabase,
  migrationsFolder,
  openDatabase,
  RUN_PARTITIONED_TABLES,
  runPartitionName,
} from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { scratchBackends } from '../test/scratch-database.ts';
import { rowsOf } from './result-rows.ts';
import { ensureRunPartitions } from './run-partitions.ts';
import { runsRepository } from './runs.repository.ts';

/** The committed migrations up to and including `last` (its journal cut there). */
function migrationsUpTo(last: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mb-migrations-'));
  cpSync(migrationsFolder, dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  const end = journal.entries.findIndex((e) => e.tag === last);
  if (end < 0) throw new Error(`no migration ${last}`);
  journal.entries = journal.entries.slice(0, end + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

const BEFORE = '0030_latency_blocks_batch';
const folder = migrationsUpTo(BEFORE);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function migrateTo0030(database: Database) {
  if (database.kind === 'postgres')
    await migrateNodePg(database.db as Parameters<typeof migrateNodePg>[0], {
      migrationsFolder: folder,
    });
  else
    await migratePglite(database.db as Parameters<typeof migratePglite>[0], {
      migrationsFolder: folder,
    });
}

async function insertRun(database: Database, id: string) {
  await database.db.execute(sql`insert into runs (id, slug, benchmark, scenario, mesh_name, started_at)
    values (${id}, ${`p-${id}`}, 'b', 's', 'consul', '2026-02-01T10:00:00Z')`);
}

/** `n` rows of the run in each raw table. */
async function insertRows(database: Database, runId: string, n: number, batch: number) {
  const at = sql`'2026-02-01T10:00:00Z'::timestamptz + g * interval '1 ms'`;
  const g = sql`generate_series(1, ${n}::int) g`;
  await database.db.execute(sql`insert into observations (run_id, change_id, proxy, at, batch_id)
    select ${runId}, 'c1', 'proxy-' || g, ${at}, ${batch} from ${g}`);
  await database.db.execute(sql`insert into incidents (run_id, kind, node, "from", batch_id)
    select ${runId}, 'restart', 'node-' || g, ${at}, ${batch} from ${g}`);
  await database.db.execute(sql`insert into lifecycle_events (run_id, phase, entity, at, batch_id)
    select ${runId}, 'joined', 'node-' || g, ${at}, ${batch} from ${g}`);
  await database.db.execute(sql`insert into metric_points (run_id, series_id, t, interval_ms, replica, count)
    select ${runId}, 1, ${at}, 1000, 'r1', g from ${g}`);
  await database.db.execute(sql`insert into load_intervals (run_id, result_id, start_ms, duration_ms, count, hdr)
    select ${runId}, 1, g * 1000, 1000, g, '\\x00'::bytea from ${g}`);
}

/** Per table, the run's rows: their count and a hash of their text, in order. */
async function rowsOfRun(database: Database, runId: string) {
  const out: Record<string, string> = {};
  for (const table of RUN_PARTITIONED_TABLES) {
    const [row] = rowsOf<{ v: string }>(
      await database.db.execute(
        sql.raw(`select count(*)::text || ':' || md5(coalesce(string_agg(x::text, E'\\n' order by x::text), '')) as v
          from ${table} x where run_id = '${runId}'`),
      ),
    );
    out[table] = row?.v ?? '';
  }
  return out;
}

/** The partitions each run's rows are in, per table. */
async function partitionsOf(database: Database, runId: string) {
  const out: Record<string, string[]> = {};
  for (const table of RUN_PARTITIONED_TABLES) {
    out[table] = rowsOf<{ p: string }>(
      await database.db.execute(
        sql.raw(
          `select distinct tableoid::regclass::text as p from ${table} where run_id = '${runId}'`,
        ),
      ),
    ).map((r) => r.p);
  }
  return out;
}

// The embedded one fresh (the suites' copy of an image is migrated to the end already).
const backends = scratchBackends('mb_partitions').map((b) =>
  b.name === 'embedded' ? { ...b, open: () => openDatabase({}) } : b,
);

describe.each(backends)('migration 0031 on $name', (backend) => {
  it('keeps every row in the partition of earlier runs, and gives a later run its own', async () => {
    const database = await backend.open();
    try {
      await migrateTo0030(database);
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      const orphan = randomUUID(); // rows of no run (none should be, but a migration must not fail on them)
      await insertRun(database, a);
      await insertRun(database, b);
      await insertRows(database, a, 300, 1);
      await insertRows(database, b, 200, 2);
      await database.db.execute(sql`insert into observations (run_id, change_id, proxy, at, batch_id)
        values (${orphan}, 'c1', 'lost', now(), 3)`);
      const before = { a: await rowsOfRun(database, a), b: await rowsOfRun(database, b) };
      expect(before.a.observations).toMatch(/^300:/);
      expect(before.b.load_intervals).toMatch(/^200:/);

      await migrateDatabase(database);

      const kinds = rowsOf<{ relname: string; relkind: string }>(
        await database.db.execute(sql`select relname, relkind::text from pg_class
          where relname = any(${`{${RUN_PARTITIONED_TABLES.join(',')}}`}::text[]) order by relname`),
      );
      expect(kinds.map((k) => k.relkind)).toEqual(RUN_PARTITIONED_TABLES.map(() => 'p'));
      expect(await rowsOfRun(database, a)).toEqual(before.a);
      expect(await rowsOfRun(database, b)).toEqual(before.b);
      const shared = Object.fromEntries(
        RUN_PARTITIONED_TABLES.map((t) => [t, [`${t}_until_0031`]]),
      );
      expect(await partitionsOf(database, a)).toEqual(shared);
      expect(await partitionsOf(database, b)).toEqual(shared);
      const [lost] = rowsOf<{ n: number }>(
        await database.db.execute(
          sql`select count(*)::int as n from observations where run_id = ${orphan}`,
        ),
      );
      expect(lost?.n).toBe(1);

      // A run stored now: its own partition in each table, made at its first write there
      // (0032); a run stored before 0031 keeps writing to the shared one.
      await insertRun(database, c);
      await ensureRunPartitions(database.db, [a, c], RUN_PARTITIONED_TABLES);
      expect(await partitionsOf(database, a)).toEqual(shared);
      await insertRows(database, c, 50, 4);
      expect(await partitionsOf(database, c)).toEqual(
        Object.fromEntries(RUN_PARTITIONED_TABLES.map((t) => [t, [runPartitionName(t, c)]])),
      );

      const runs = runsRepository(database.db);
      const audit = (id: string) => ({ id: randomUUID(), deletedBy: `test ${id}` });
      const goneC = await runs.delete(c, audit(c));
      const goneA = await runs.delete(a, audit(a));
      for (const table of RUN_PARTITIONED_TABLES) {
        expect(goneC?.rows[table], table).toBe(50);
        expect(goneA?.rows[table], table).toBe(300);
      }
      const left = rowsOf<{ n: number }>(
        await database.db.execute(sql`select count(*)::int as n from pg_class
          where relname like ${`%_r${c.replaceAll('-', '')}`}`),
      );
      expect(left[0]?.n).toBe(0);
      expect(await rowsOfRun(database, b)).toEqual(before.b);
      expect((await rowsOfRun(database, a)).observations).toBe(
        (await rowsOfRun(database, randomUUID())).observations,
      );
    } finally {
      await database.close();
    }
  }, 240_000);
});
