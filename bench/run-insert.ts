// bench/run-insert: what storing a run costs with migration 0031's trigger (its five partitions
// made with its row) and with 0032's (none made with it; a table's partition made at the run's
// first write there, `meshbench_run_partition`), on one database of each kind, rounds of each
// alternated so that the machine's load falls on both alike. 0031's functions are taken from its
// migration file and its trigger switched on for its rounds.
// Figures, p50/p99 ms: a run's insert under 0031; under 0032; 0032's first-write partition of
// observations (the one most runs write); 0032's insert plus that partition.
// Usage: DATABASE_URL=postgres://.../db tsx run-insert.ts [--runs 60] [--rounds 6]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrateDatabase, migrationsFolder, openDatabase } from '@meshbench/db';
import { DEFAULT_DATABASE_URL } from './lib/server.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const RUNS = arg('runs', 60);
const ROUNDS = arg('rounds', 6);

const nearestRank = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** 0031's two functions, as its migration wrote them. */
const TRIGGER_FUNCTIONS = readFileSync(join(migrationsFolder, '0031_run_partitions.sql'), 'utf8')
  .split('--> statement-breakpoint')
  .filter((s) => /CREATE FUNCTION "meshbench_runs?_partitions"/.test(s));

async function measure(kind: string, execute: (text: string) => Promise<unknown>) {
  for (const f of TRIGGER_FUNCTIONS) await execute(f);
  await execute(
    'create trigger runs_partitions after insert on runs for each row execute function meshbench_runs_partitions()',
  );
  const old: number[] = [];
  const lazy: number[] = [];
  const first: number[] = [];
  const both: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const trigger = round % 2 === 0;
    await execute(`alter table runs ${trigger ? 'enable' : 'disable'} trigger runs_partitions`);
    for (let i = 0; i < RUNS / (ROUNDS / 2); i++) {
      const id = randomUUID();
      let t = performance.now();
      await execute(`insert into runs (id, slug, benchmark, scenario, mesh_name, started_at)
        values ('${id}', 'r-${id}', 'bench', 's', 'consul', now())`);
      const insertMs = performance.now() - t;
      if (trigger) {
        old.push(insertMs);
        continue;
      }
      lazy.push(insertMs);
      t = performance.now();
      await execute(`select meshbench_run_partition('${id}', 'observations')`);
      first.push(performance.now() - t);
      both.push(insertMs + (performance.now() - t));
    }
  }
  const f = (v: number[]) => `${nearestRank(v, 50).toFixed(1)}/${nearestRank(v, 99).toFixed(1)}`;
  console.log(
    `${kind} (${old.length} runs each, p50/p99 ms): run insert 0031 (trigger, 5 partitions) ${f(old)}; 0032 ${f(lazy)}; 0032 first write's observations partition ${f(first)}; 0032 insert + that partition ${f(both)}; load ${load()}`,
  );
}

async function main() {
  console.log(`load average at start: ${load()}`);
  const base = new URL(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
  const name = `bench_run_insert_${process.pid}`;
  const admin = await openDatabase({ url: base.toString(), poolSize: 1 });
  await admin.db.execute(`create database ${name}`);
  try {
    const url = new URL(base);
    url.pathname = `/${name}`;
    const pg = await openDatabase({ url: url.toString(), poolSize: 1 });
    await migrateDatabase(pg);
    await measure('postgres', (text) => pg.db.execute(text));
    await pg.close();
  } finally {
    await admin.db.execute(`drop database if exists ${name}`);
    await admin.close();
  }
  const embedded = await openDatabase({});
  await migrateDatabase(embedded);
  await measure('embedded', (text) => embedded.db.execute(text));
  await embedded.close();
}

await main();
