// bench/retention: what deleting a run's raw rows costs today (DELETE by run id, the way
// retention and run deletion do it), beside the same rows in a table list-partitioned by run
// (one partition a run, deletion a DROP of it), in the same run on the same Postgres. Both
// tables have observations' columns and its one index (BRIN on batch_id); rows are made by the
// server (generate_series), so the insert rate is the table's, not a client's or COPY's.
// Figures: insert rows/s, a run's read (count and nearest-rank p99 of one change, by its
// batch range and run id) p50/p99 over `reads` runs, and one run's retention.
// No budget: it informs the choice in docs/scale.md.
// Usage: DATABASE_URL=postgres://... tsx retention.ts [--rows 2000000] [--runs 20] [--reads 40]
//   [--unsummarized: reads before the BRIN ranges are summarized]
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_DATABASE_URL } from './lib/server.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ROWS = arg('rows', 2_000_000);
const RUNS = arg('runs', 20);
const READS = arg('reads', 40);
const PER_RUN = Math.floor(ROWS / RUNS);
const schema = `bench_retention_${process.pid}`;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const COLUMNS = `run_id uuid not null, change_id text not null, proxy text not null, node text,
  at timestamptz not null, cause text, attrs jsonb, batch_id bigint not null, stage text`;

/** Nearest rank: the smallest value with at least p % of the values at or below it. */
const nearestRank = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;

async function main() {
  const client = new pg.Client({
    connectionString: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  });
  await client.connect();
  const time = async (text: string, values: unknown[] = []) => {
    const t = performance.now();
    await client.query(text, values);
    return performance.now() - t;
  };
  const runIds = Array.from({ length: RUNS }, () => randomUUID());
  try {
    await client.query(`create schema ${schema}`);
    await client.query(`create table ${schema}.plain (${COLUMNS})`);
    await client.query(`create table ${schema}.parted (${COLUMNS}) partition by list (run_id)`);
    for (const [i, id] of runIds.entries()) {
      await client.query(
        `create table ${schema}.parted_${i} partition of ${schema}.parted for values in ('${id}')`,
      );
    }
    for (const table of ['plain', 'parted']) {
      await client.query(
        `create index on ${schema}.${table} using brin (batch_id) with (pages_per_range = 16, autosummarize = on)`,
      );
    }
    const figures: Record<string, { insertRps: number; p50: number; p99: number; dropMs: number }> =
      {};
    for (const table of ['plain', 'parted']) {
      let insertMs = 0;
      for (const [i, id] of runIds.entries()) {
        // One batch a run, as a run's rows sit in its batches' block ranges.
        insertMs += await time(
          `insert into ${schema}.${table}
           select $1::uuid, 'c1', 'p' || g, 'n' || (g % 1000),
             timestamptz '2026-02-01 10:00:00+00' + (g % 60000) * interval '1 ms',
             null, null, $2::int8, null
           from generate_series(1, $3::int) g`,
          [id, i + 1, PER_RUN],
        );
      }
      await client.query(`analyze ${schema}.${table}`);
      // Block ranges summarized, as autovacuum leaves them some time after a load (before it,
      // every unsummarized range is read: --unsummarized measures that moment instead).
      if (!args.includes('--unsummarized')) {
        await client.query(
          `select brin_summarize_new_values(i.indexrelid) from pg_index i
           join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
           join pg_class x on x.oid = i.indexrelid join pg_am a on a.oid = x.relam
           where n.nspname = $1 and a.amname = 'brin' and x.relkind = 'i'`,
          [schema],
        );
      }
      const reads: number[] = [];
      for (let r = 0; r < READS; r++) {
        const i = r % RUNS;
        reads.push(
          await time(
            `select count(*), percentile_disc(0.99) within group (order by at)
             from ${schema}.${table}
             where batch_id between $2 and $2 and run_id = $1 and change_id = 'c1'`,
            [runIds[i], i + 1],
          ),
        );
      }
      reads.sort((a, b) => a - b);
      const victim = runIds[0] as string;
      const dropMs =
        table === 'plain'
          ? await time(`delete from ${schema}.plain where run_id = $1`, [victim])
          : await time(`drop table ${schema}.parted_0`);
      figures[table] = {
        insertRps: (PER_RUN * RUNS) / (insertMs / 1000),
        p50: nearestRank(reads, 50),
        p99: nearestRank(reads, 99),
        dropMs,
      };
    }
    console.log(
      `${fmt(PER_RUN * RUNS)} observations in ${RUNS} runs (${fmt(PER_RUN)} a run); reads: ${READS} (nearest rank)`,
    );
    console.log(
      'table                        insert rows/s   read p50 ms   read p99 ms   one run gone ms',
    );
    for (const [table, f] of Object.entries(figures)) {
      const name = table === 'plain' ? 'plain (DELETE by run id)' : 'list by run (DROP partition)';
      console.log(
        `${name.padEnd(28)} ${fmt(f.insertRps).padStart(14)} ${fmt(f.p50, 1).padStart(13)} ${fmt(f.p99, 1).padStart(13)} ${fmt(f.dropMs, 1).padStart(17)}`,
      );
    }
    const plain = figures.plain as (typeof figures)['plain'];
    const parted = figures.parted as (typeof figures)['parted'];
    console.log(
      `partitioned / plain: insert ${fmt(parted.insertRps / plain.insertRps, 2)}, read p50 ${fmt(parted.p50 / plain.p50, 2)}, one run gone ${fmt(parted.dropMs / plain.dropMs, 3)}`,
    );
  } finally {
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
}

await main();
