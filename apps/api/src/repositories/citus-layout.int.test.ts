// The migrated schema read from its live catalog (pg_constraint, pg_index,
// information_schema) against Citus' rules for where each table goes (docs/scale.md): every
// table has a place; a distributed table has a uuid run_id, every primary or unique key of it
// includes run_id, and a foreign key of it to another distributed table joins run_id to
// run_id; a reference table references only reference tables. The rules are the checks of
// citusdata/citus src/backend/distributed/commands/foreign_constraint.c
// (ErrorIfUnsupportedForeignConstraintExists) and of its unique-constraint and unique-index
// checks on create_distributed_table.
import { randomUUID } from 'node:crypto';
import {
  COORDINATOR_TABLES,
  type Database,
  DISTRIBUTED_TABLES,
  migrateDatabase,
  REFERENCE_TABLES,
} from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchBackends } from '../test/scratch-database.ts';
import { rowsOf } from './result-rows.ts';

interface Layout {
  distributed: readonly string[];
  reference: readonly string[];
  coordinator: readonly string[];
}

const LAYOUT: Layout = {
  distributed: Object.keys(DISTRIBUTED_TABLES),
  reference: REFERENCE_TABLES,
  coordinator: COORDINATOR_TABLES,
};

/** What breaks a Citus rule in `schema`, one line each; [] when the layout fits. */
async function citusViolations(db: Database['db'], schema: string, layout: Layout) {
  const out: string[] = [];
  const placeOf = new Map<string, string>();
  for (const [place, names] of Object.entries(layout)) {
    for (const name of names) {
      if (placeOf.has(name)) out.push(`${name}: listed as ${placeOf.get(name)} and ${place}`);
      placeOf.set(name, place);
    }
  }
  const tables = rowsOf<{ name: string }>(
    await db.execute(sql`
      select table_name as name from information_schema.tables
      where table_schema = ${schema} and table_type = 'BASE TABLE'
        and table_name not in (select c.relname from pg_class c
          join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = ${schema} and c.relispartition)
      order by table_name`),
  ).map((r) => r.name);
  for (const name of tables) {
    if (!placeOf.has(name)) out.push(`${name}: in no list (distributed, reference, coordinator)`);
  }
  for (const name of placeOf.keys()) {
    if (!tables.includes(name)) out.push(`${name}: listed, but no such table`);
  }
  const distributed = new Set(layout.distributed);
  const reference = new Set(layout.reference);

  const runIdType = new Map(
    rowsOf<{ table: string; type: string; nullable: string }>(
      await db.execute(sql`
        select table_name as table, data_type as type, is_nullable as nullable
        from information_schema.columns where table_schema = ${schema} and column_name = 'run_id'`),
    ).map((r) => [r.table, r]),
  );
  for (const name of distributed) {
    const column = runIdType.get(name);
    if (!column) out.push(`${name}: distributed but has no run_id`);
    else if (column.type !== 'uuid' || column.nullable !== 'NO')
      out.push(`${name}: run_id is ${column.type}, nullable ${column.nullable} (uuid not null)`);
  }

  // Primary, unique and exclusion constraints, and unique indexes (a unique index need not be
  // a constraint): each must name run_id as a column of its own.
  const keys = rowsOf<{ table: string; name: string; columns: string[] | string }>(
    await db.execute(sql`
      select c.relname as table, i.relname as name,
        array(select coalesce(a.attname, '(expression)') from unnest(x.indkey::int2[]) as k(n)
          left join pg_attribute a on a.attrelid = c.oid and a.attnum = k.n) as columns
      from pg_index x join pg_class c on c.oid = x.indrelid
      join pg_class i on i.oid = x.indexrelid
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and x.indisunique and not c.relispartition
      union all
      select c.relname, k.conname,
        array(select a.attname from unnest(k.conkey) as kk(n)
          join pg_attribute a on a.attrelid = c.oid and a.attnum = kk.n)
      from pg_constraint k join pg_class c on c.oid = k.conrelid
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and k.contype in ('p', 'u', 'x') and not c.relispartition`),
  );
  const seen = new Set<string>();
  for (const key of keys) {
    // A primary or unique constraint is also its index: one line for both.
    if (!distributed.has(key.table) || seen.has(`${key.table}.${key.name}`)) continue;
    seen.add(`${key.table}.${key.name}`);
    const columns = arrayOf(key.columns);
    if (!columns.includes('run_id'))
      out.push(`${key.table}: unique key ${key.name} (${columns.join(', ')}) lacks run_id`);
  }

  // Foreign keys, column by column, with their actions.
  const fks = rowsOf<{
    table: string;
    name: string;
    target: string;
    pairs: string[] | string;
    on_delete: string;
    on_update: string;
  }>(
    await db.execute(sql`
      select c.relname as table, k.conname as name, t.relname as target,
        array(select a.attname || '=' || b.attname
          from unnest(k.conkey, k.confkey) as p(l, r)
          join pg_attribute a on a.attrelid = k.conrelid and a.attnum = p.l
          join pg_attribute b on b.attrelid = k.confrelid and b.attnum = p.r) as pairs,
        k.confdeltype::text as on_delete, k.confupdtype::text as on_update
      from pg_constraint k join pg_class c on c.oid = k.conrelid
      join pg_class t on t.oid = k.confrelid
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and k.contype = 'f' and not c.relispartition`),
  );
  for (const fk of fks) {
    const pairs = arrayOf(fk.pairs);
    const at = `${fk.table}: foreign key ${fk.name} to ${fk.target}`;
    const onRunId = pairs.some((p) => p.startsWith('run_id='));
    if (distributed.has(fk.table)) {
      if (distributed.has(fk.target)) {
        if (!pairs.includes('run_id=run_id')) out.push(`${at} does not join run_id to run_id`);
      } else if (!reference.has(fk.target)) {
        out.push(`${at}: a distributed table may reference distributed or reference tables only`);
      }
      if (onRunId && (fk.on_delete === 'n' || fk.on_delete === 'd'))
        out.push(`${at}: ON DELETE SET NULL/DEFAULT on the distribution column`);
      if (onRunId && ['n', 'd', 'c'].includes(fk.on_update))
        out.push(`${at}: ON UPDATE SET NULL/DEFAULT/CASCADE on the distribution column`);
    } else if (reference.has(fk.table) && !reference.has(fk.target)) {
      out.push(`${at}: a reference table may reference reference tables only`);
    }
  }
  return out;
}

/** A name[] as either driver returns it: an array, or Postgres' text form `{a,b}`. */
function arrayOf(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  return value
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter((s) => s !== '')
    .map((s) => s.replace(/^"|"$/g, ''));
}

// A database of the suite's own: the catalog read is this checkout's migrations only.
describe.each(scratchBackends('citus_layout'))(
  'the schema is ready for Citus on $name',
  (backend) => {
    let database: Database;
    beforeAll(async () => {
      database = await backend.open();
      await migrateDatabase(database);
    }, 240_000);
    afterAll(async () => database?.close());

    it('places every table, and keys every distributed one by run id', async () => {
      const schema = rowsOf<{ s: string }>(
        await database.db.execute(sql`select current_schema() as s`),
      )[0]?.s;
      expect(schema).toBe('public');
      expect(await citusViolations(database.db, 'public', LAYOUT)).toEqual([]);
    });

    it('names each rule a table breaks, and a table in no list', async () => {
      // A scratch schema of tables that break one rule each, beside ones that keep them.
      const schema = `citus_probe_${randomUUID().replaceAll('-', '')}`;
      const q = (text: string) => database.db.execute(sql.raw(text));
      await q(`create schema ${schema}`);
      try {
        await q(`create table ${schema}.runs (id uuid primary key, slug text unique)`);
        await q(`create table ${schema}.parent (run_id uuid not null, id bigint not null,
        primary key (run_id, id))`);
        await q(`create table ${schema}.good (run_id uuid not null references ${schema}.runs (id)
        on delete cascade, parent_id bigint, foreign key (run_id, parent_id)
        references ${schema}.parent (run_id, id))`);
        await q(`create table ${schema}.id_key (id bigint primary key, run_id uuid not null)`);
        await q(`create table ${schema}.bad_fk (run_id uuid not null, parent_id bigint,
        other_run uuid, foreign key (other_run, parent_id) references ${schema}.parent (run_id, id))`);
        await q(`create table ${schema}.nullable (run_id uuid)`);
        await q(`create table ${schema}.unique_idx (run_id uuid not null, k text)`);
        await q(`create unique index on ${schema}.unique_idx (k)`);
        await q(`create table ${schema}.ref_to_dist (id int primary key, run_id uuid
        references ${schema}.runs (id), p_run uuid, p_id bigint,
        foreign key (p_run, p_id) references ${schema}.parent (run_id, id))`);
        await q(`create table ${schema}.set_null (run_id uuid not null references ${schema}.runs (id)
        on delete set null)`);
        await q(`create table ${schema}.forgotten (x int)`);
        const violations = await citusViolations(database.db, schema, {
          distributed: ['parent', 'good', 'id_key', 'bad_fk', 'nullable', 'unique_idx', 'set_null'],
          reference: ['runs', 'ref_to_dist', 'gone'],
          coordinator: [],
        });
        expect(violations.sort()).toEqual(
          [
            'forgotten: in no list (distributed, reference, coordinator)',
            'gone: listed, but no such table',
            'nullable: run_id is uuid, nullable YES (uuid not null)',
            'id_key: unique key id_key_pkey (id) lacks run_id',
            'unique_idx: unique key unique_idx_k_idx (k) lacks run_id',
            'bad_fk: foreign key bad_fk_other_run_parent_id_fkey to parent does not join run_id to run_id',
            'ref_to_dist: foreign key ref_to_dist_p_run_p_id_fkey to parent: a reference table may reference reference tables only',
            'set_null: foreign key set_null_run_id_fkey to runs: ON DELETE SET NULL/DEFAULT on the distribution column',
          ].sort(),
        );
      } finally {
        await q(`drop schema ${schema} cascade`);
      }
    });
  },
);
