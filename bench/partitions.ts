// bench/partitions: the raw tables before and after migration 0031 (list-partitioned by run),
// in the same run on the same Postgres: two databases of the real schema, one migrated to 0030
// (plain tables), one to the end (a partition per run), given the same rows, run by run
// alternately so that the machine's load falls on both alike. Rows are made by the server
// (generate_series) into the real `observations` (its BRIN index), so the insert rate is the
// table's, not a client's or COPY's.
// Figures, plain and partitioned: a run's insert (its row in runs: the trigger makes its five
// partitions), observations insert rows/s, a run's read (count and nearest-rank p99 of one
// change by its batch range and run id, as the repositories read) p50/p99 and its planning
// time, a read across runs (by batch id, no run id: not pruned) p50 and planning time, both
// again once the database holds --empty more runs (partitions), and deleting a run (DELETE by
// run id, or its partitions counted and dropped, as runs.repository) and emptying one
// (retention: TRUNCATE). COPY of --copy-runs runs of --copy-rows each (text format) into either
// side, alternated. Then run inserts on the embedded database (PGlite), trigger on and off.
// No budget: it informs the choice in docs/scale.md.
// Usage: DATABASE_URL=postgres://.../db tsx partitions.ts [--rows 10000000] [--runs 100]
//   [--empty 900] [--reads 40] [--embedded-runs 30] [--copy-rows 500000] [--copy-runs 6]
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Database,
  migrateDatabase,
  migrationsFolder,
  openDatabase,
  RUN_PARTITIONED_TABLES,
  runPartitionName,
} from '@meshbench/db';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DEFAULT_DATABASE_URL } from './lib/server.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ROWS = arg('rows', 2_000_000);
const RUNS = arg('runs', 20);
const EMPTY = arg('empty', 900);
const READS = arg('reads', 40);
const EMBEDDED_RUNS = arg('embedded-runs', 30);
const COPY_ROWS = arg('copy-rows', 500_000);
const COPY_RUNS = arg('copy-runs', 6);
const PER_RUN = Math.floor(ROWS / RUNS);
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** Nearest rank: the smallest value with at least p % of the values at or below it. */
const nearestRank = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

/** Applies the committed migrations' SQL up to and including `last`, file by file. */
async function migrateUpTo(client: pg.Client, last: string) {
  for (const file of readdirSync(migrationsFolder)
    .filter((f) => f.endsWith('.sql') && f <= `${last}.sql`)
    .sort()) {
    for (const statement of readFileSync(join(migrationsFolder, file), 'utf8').split(
      '--> statement-breakpoint',
    ))
      await client.query(statement);
  }
}

type Side = {
  name: 'plain' | 'parted';
  client: pg.Client;
  database: Database;
  url: string;
  /** Partitions made at a run's first write (0032), not by a trigger on runs (0031). */
  lazy: boolean;
};

/** Since 0032 a run's partition is made at its first write (meshbench_run_partition). */
async function firstWrite(side: Side, runId: string) {
  if (side.name === 'parted' && side.lazy)
    await side.client.query(`select meshbench_run_partition($1, 'observations')`, [runId]);
}

async function timed(client: pg.Client, text: string, values: unknown[] = []) {
  const t = performance.now();
  const result = await client.query(text, values);
  return { ms: performance.now() - t, result };
}

async function planningMs(client: pg.Client, text: string, values: unknown[]) {
  const { result } = await timed(client, `explain (summary on) ${text}`, values);
  const line = result.rows
    .map((r: Record<string, string>) => Object.values(r)[0] as string)
    .find((l) => l.startsWith('Planning Time'));
  return Number(/([\d.]+) ms/.exec(line ?? '')?.[1] ?? Number.NaN);
}

const RUN_INSERT = `insert into runs (id, slug, benchmark, scenario, mesh_name, started_at)
  values ($1, $2, 'bench', 's', 'consul', now())`;
const READ = `select count(*), percentile_disc(0.99) within group (order by at) from observations
  where batch_id between $2 and $2 and run_id = $1 and change_id = 'c1'`;
const ACROSS = 'select count(*) from observations where batch_id = $1';

/** `n` observations of run `id` in COPY's text format, in chunks of 10,000 lines. */
function copyLines(id: string, n: number, batchId: number): string[] {
  const chunks: string[] = [];
  for (let from = 0; from < n; from += 10_000) {
    let chunk = '';
    for (let g = from; g < Math.min(n, from + 10_000); g++)
      chunk += `${id}\tc1\tp${g}\tn${g % 1000}\t2026-02-01 10:00:${String(g % 60).padStart(2, '0')}.${String(g % 1000).padStart(3, '0')}+00\t${batchId}\n`;
    chunks.push(chunk);
  }
  return chunks;
}

/** Streams `chunks` into observations by COPY (text) and returns the milliseconds taken. */
async function copyInto(client: pg.Client, chunks: string[]): Promise<number> {
  const t = performance.now();
  const stream = client.query(
    copyFrom('copy observations (run_id, change_id, proxy, node, at, batch_id) from stdin'),
  );
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
    (async () => {
      for (const chunk of chunks)
        if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
      stream.end();
    })().catch(reject);
  });
  return performance.now() - t;
}

async function main() {
  const base = new URL(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  const sides: Side[] = [];
  const load = () => {
    const l = readFileSync('/proc/loadavg', 'utf8').split(' ');
    return `${l[0]} ${l[1]} ${l[2]}`;
  };
  console.log(`load average at start: ${load()}`);
  try {
    for (const name of ['plain', 'parted'] as const) {
      const db = `bench_partitions_${name}_${process.pid}`;
      await admin.query(`create database ${db}`);
      const url = new URL(base);
      url.pathname = `/${db}`;
      const database = await openDatabase({ url: url.toString(), poolSize: 1 });
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      if (name === 'plain') await migrateUpTo(client, '0030_latency_blocks_batch');
      else await migrateDatabase(database);
      const { rows } = await client.query<{ f: string | null }>(
        `select to_regproc('meshbench_run_partition')::text as f`,
      );
      sides.push({ name, client, database, url: url.toString(), lazy: Boolean(rows[0]?.f) });
    }
    const runIds = Array.from({ length: RUNS }, () => randomUUID());
    const runInsert: Record<string, number[]> = { plain: [], parted: [] };
    const insertMs: Record<string, number> = { plain: 0, parted: 0 };
    // Run by run, each side in turn: the run's row, then its rows in one batch.
    for (const [i, id] of runIds.entries()) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        runInsert[side.name]?.push((await timed(side.client, RUN_INSERT, [id, `b-${id}`])).ms);
        await firstWrite(side, id);
        insertMs[side.name] =
          (insertMs[side.name] ?? 0) +
          (
            await timed(
              side.client,
              `insert into observations (run_id, change_id, proxy, node, at, batch_id)
               select $1::uuid, 'c1', 'p' || g, 'n' || (g % 1000),
                 timestamptz '2026-02-01 10:00:00+00' + (g % 60000) * interval '1 ms', $2::int8
               from generate_series(1, $3::int) g`,
              [id, i + 1, PER_RUN],
            )
          ).ms;
      }
    }
    // COPY (as the API's ingest writes): a run's rows streamed in text format, into the plain
    // table and into the parent of the run's partition, runs alternated.
    const copyMs: Record<string, number> = { plain: 0, parted: 0 };
    for (let k = 0; k < COPY_RUNS; k++) {
      const id = randomUUID();
      const chunks = copyLines(id, COPY_ROWS, RUNS + 1 + k);
      for (const side of k % 2 === 0 ? sides : [...sides].reverse()) {
        await side.client.query(RUN_INSERT, [id, `c-${id}`]);
        await firstWrite(side, id);
        copyMs[side.name] = (copyMs[side.name] ?? 0) + (await copyInto(side.client, chunks));
      }
    }
    console.log(
      `observations COPY rows/s (${COPY_RUNS} runs of ${fmt(COPY_ROWS)}): plain ${fmt((COPY_ROWS * COPY_RUNS) / ((copyMs.plain ?? 1) / 1000))}, partitioned ${fmt((COPY_ROWS * COPY_RUNS) / ((copyMs.parted ?? 1) / 1000))}; load average ${load()}`,
    );
    for (const side of sides) {
      await side.client.query('analyze observations');
      // Block ranges summarized, as autovacuum (or the API after a batch) leaves them.
      await side.client.query(
        `select brin_summarize_new_values(i.indexrelid) from pg_index i
         join pg_class x on x.oid = i.indexrelid join pg_am a on a.oid = x.relam
         where a.amname = 'brin' and x.relkind = 'i'`,
      );
    }
    console.log(
      `${fmt(PER_RUN * RUNS)} observations in ${RUNS} runs (${fmt(PER_RUN)} a run); load average after loading: ${load()}`,
    );
    console.log(
      `observations insert rows/s: plain ${fmt((PER_RUN * RUNS) / ((insertMs.plain ?? 1) / 1000))}, partitioned ${fmt((PER_RUN * RUNS) / ((insertMs.parted ?? 1) / 1000))}`,
    );

    const reads = async (label: string) => {
      const read: Record<string, number[]> = { plain: [], parted: [] };
      const plan: Record<string, number[]> = { plain: [], parted: [] };
      const across: Record<string, number[]> = { plain: [], parted: [] };
      const acrossPlan: Record<string, number[]> = { plain: [], parted: [] };
      for (let r = 0; r < READS; r++) {
        const i = r % RUNS;
        for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
          read[side.name]?.push((await timed(side.client, READ, [runIds[i], i + 1])).ms);
          plan[side.name]?.push(await planningMs(side.client, READ, [runIds[i], i + 1]));
          if (r % 4 === 0) {
            across[side.name]?.push((await timed(side.client, ACROSS, [i + 1])).ms);
            acrossPlan[side.name]?.push(await planningMs(side.client, ACROSS, [i + 1]));
          }
        }
      }
      console.log(`\n${label}`);
      console.log(
        'table         run read p50 ms  p99 ms  planning p50 ms | across runs p50 ms  planning p50 ms',
      );
      for (const side of sides) {
        const n = side.name;
        console.log(
          `${n.padEnd(13)} ${fmt(nearestRank(read[n] ?? [], 50), 1).padStart(15)} ${fmt(nearestRank(read[n] ?? [], 99), 1).padStart(7)} ${fmt(nearestRank(plan[n] ?? [], 50), 2).padStart(16)} | ${fmt(nearestRank(across[n] ?? [], 50), 1).padStart(18)} ${fmt(nearestRank(acrossPlan[n] ?? [], 50), 2).padStart(16)}`,
        );
      }
    };
    await reads(`reads at ${RUNS} runs (${READS} run reads, ${Math.ceil(READS / 4)} across runs)`);

    // More runs, with no rows: more partitions, as a year of runs leaves.
    const emptyInsert: Record<string, number[]> = { plain: [], parted: [] };
    for (let i = 0; i < EMPTY; i++) {
      const id = randomUUID();
      for (const side of i % 2 === 0 ? sides : [...sides].reverse())
        emptyInsert[side.name]?.push((await timed(side.client, RUN_INSERT, [id, `e-${id}`])).ms);
    }
    const all = [...(runInsert.plain ?? []), ...(emptyInsert.plain ?? [])];
    const allParted = [...(runInsert.parted ?? []), ...(emptyInsert.parted ?? [])];
    console.log(
      `\nrun insert (${all.length} runs) p50/p99 ms: plain ${fmt(nearestRank(all, 50), 1)}/${fmt(nearestRank(all, 99), 1)}, partitioned (${sides[1]?.lazy ? 'none made: 0032' : 'trigger: 5 partitions'}) ${fmt(nearestRank(allParted, 50), 1)}/${fmt(nearestRank(allParted, 99), 1)}`,
    );
    for (const side of sides) await side.client.query('analyze observations');
    await reads(
      `reads at ${RUNS + EMPTY} runs (${(RUNS + EMPTY) * RUN_PARTITIONED_TABLES.length} partitions)`,
    );

    // Deleting a run of rows: DELETE by run id (plain), its partitions dropped (parted), as
    // runs.repository's emptyRunRows does, table by table in one transaction; then retention.
    const gone: Record<string, number[]> = { plain: [], parted: [] };
    const emptied: Record<string, number[]> = { plain: [], parted: [] };
    const empty = async (side: Side, id: string, how: 'drop' | 'truncate') => {
      const t = performance.now();
      await side.client.query('begin');
      for (const table of RUN_PARTITIONED_TABLES) {
        if (side.name === 'plain') {
          await side.client.query(
            `with gone as (delete from ${table} where run_id = $1 returning 1) select count(*) from gone`,
            [id],
          );
        } else {
          const part = runPartitionName(table, id);
          await side.client.query(`select count(*) from "${part}"`);
          await side.client.query(`${how === 'drop' ? 'drop table' : 'truncate'} "${part}"`);
        }
      }
      await side.client.query('commit');
      return performance.now() - t;
    };
    for (let k = 0; k < 3; k++) {
      for (const side of k % 2 === 0 ? sides : [...sides].reverse()) {
        gone[side.name]?.push(await empty(side, runIds[k] as string, 'drop'));
        emptied[side.name]?.push(await empty(side, runIds[3 + k] as string, 'truncate'));
      }
    }
    console.log(
      `\none run of ${fmt(PER_RUN)} observations deleted, median of 3 ms: plain (DELETE) ${fmt(nearestRank(gone.plain ?? [], 50), 1)}, partitioned (DROP) ${fmt(nearestRank(gone.parted ?? [], 50), 1)}`,
    );
    console.log(
      `one run's raw rows emptied (retention), median of 3 ms: plain (DELETE) ${fmt(nearestRank(emptied.plain ?? [], 50), 1)}, partitioned (TRUNCATE) ${fmt(nearestRank(emptied.parted ?? [], 50), 1)}`,
    );
    console.log(`load average at the end of the Postgres part: ${load()}`);
  } finally {
    for (const side of sides) {
      await side.client.end();
      await side.database.close();
    }
    for (const name of ['plain', 'parted'])
      await admin.query(`drop database if exists bench_partitions_${name}_${process.pid}`);
    await admin.end();
  }

  // The embedded database: a run's insert with the trigger making its partitions, and the
  // same insert with the trigger disabled, alternated in rounds.
  const embedded = await openDatabase({});
  await migrateDatabase(embedded);
  if (sides[1]?.lazy) {
    await embedded.close();
    console.log('\nembedded run insert: no trigger since 0032 (bench/run-insert.ts compares)');
    return;
  }
  const on: number[] = [];
  const off: number[] = [];
  for (let round = 0; round < 6; round++) {
    const trigger = round % 2 === 0;
    await embedded.db.execute(
      `alter table runs ${trigger ? 'enable' : 'disable'} trigger runs_partitions`,
    );
    for (let i = 0; i < EMBEDDED_RUNS / 3; i++) {
      const id = randomUUID();
      const t = performance.now();
      await embedded.db.execute(`insert into runs (id, slug, benchmark, scenario, mesh_name, started_at)
        values ('${id}', 'x-${id}', 'bench', 's', 'consul', now())`);
      (trigger ? on : off).push(performance.now() - t);
    }
  }
  await embedded.close();
  console.log(
    `\nembedded run insert p50/p99 ms (${on.length} each, alternated): trigger on ${fmt(nearestRank(on, 50), 1)}/${fmt(nearestRank(on, 99), 1)}, off ${fmt(nearestRank(off, 50), 1)}/${fmt(nearestRank(off, 99), 1)}; load average ${load()}`,
  );
}

await main();
