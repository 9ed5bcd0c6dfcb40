// bench/pooled-ingest: the 178,000-observation change batch (bench/ingest-propagation's) end
// to end (send -> summary read whole) through Debian's haproxy in front of two API replicas
// that reach Postgres through Debian's pgbouncer in transaction pooling mode, beside the same
// batch sent to a replica connected straight to Postgres, in the same run: alternated, the
// median of each. Budget: pooled >= 90 % of direct.
// Usage: tsx pooled-ingest.ts [--observations N] [--repeats N] (DATABASE_URL, default the local test db)
import { gzipSync } from 'node:zlib';
import { type Haproxy, startHaproxy } from '@meshbench/api/haproxy';
import { type Pgbouncer, startPgbouncer } from '@meshbench/api/pgbouncer';
import * as schema from '@meshbench/schema';
import pg from 'pg';
import { budget, reportBudgets } from './lib/budget.ts';
import { changeLine, observationBlock } from './lib/propagation-data.ts';
import { type ApiProcess, AUTH, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('observations', 178_000);
const REPEATS = arg('repeats', 5);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const json =
  <T>(parser: { parse(value: unknown): T }) =>
  async (response: Response): Promise<T> => {
    const text = await response.text();
    if (!response.ok) throw new Error(`${response.status} ${text}`);
    return parser.parse(JSON.parse(text));
  };

/** A bench's run leaves no rows behind. */
async function deleteRun(runId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  for (const t of ['observations', 'latency_blocks', 'change_summaries', 'proxy_fingerprints'])
    await client.query(`delete from ${t} where run_id = $1`, [runId]);
  await client.query('delete from runs where id = $1', [runId]);
  await client.end();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main() {
  const body = gzipSync(`${changeLine('c1', N)}\n${observationBlock('c1', 0, N)}`);
  let bouncer: Pgbouncer | undefined;
  let lb: Haproxy | undefined;
  const apis: ApiProcess[] = [];
  try {
    const direct = await startApi({ DATABASE_URL: databaseUrl });
    apis.push(direct);
    bouncer = await startPgbouncer(databaseUrl);
    const pooledA = await startApi({ DATABASE_URL: bouncer.url });
    const pooledB = await startApi({ DATABASE_URL: bouncer.url });
    apis.push(pooledA, pooledB);
    lb = await startHaproxy([pooledA.url, pooledB.url]);

    /** One batch into a new run, from sending it until its summary reads back whole. */
    const ingestOnce = async (base: string) => {
      const run = await json(schema.run)(
        await fetch(`${base}/api/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...AUTH },
          body: JSON.stringify({
            benchmark: 'bench',
            scenario: 'pooled-ingest',
            mesh: { name: 'consul' },
          }),
        }),
      );
      const started = performance.now();
      const ingest = await json(schema.ingestResult)(
        await fetch(`${base}/api/v1/runs/${run.id}/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-ndjson',
            'content-encoding': 'gzip',
            'idempotency-key': 'bench-1',
            ...AUTH,
          },
          body,
        }),
      );
      const summary = await json(schema.propagation)(
        await fetch(`${base}/api/v1/runs/${run.id}/changes/c1/propagation`),
      );
      const ms = performance.now() - started;
      if (summary.count !== N || ingest.accepted !== N + 1)
        throw new Error(`stored ${summary.count} of ${N}`);
      await deleteRun(run.id);
      return ms;
    };
    // The first batch of each process compiles its code: one of each, not counted. Through
    // the balancer, one for each replica (round robin).
    await ingestOnce(direct.url);
    await ingestOnce(lb.url);
    await ingestOnce(lb.url);
    const directMs: number[] = [];
    const pooledMs: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      directMs.push(await ingestOnce(direct.url));
      pooledMs.push(await ingestOnce(lb.url));
    }
    const d = median(directMs);
    const p = median(pooledMs);
    const ratio = d / p;
    console.log('\nbench/pooled-ingest');
    console.log(
      `  observations                 ${fmt(N)} (gzip body ${fmt(body.length / 1024 / 1024, 1)} MiB)`,
    );
    console.log(
      `  direct (API -> Postgres)     ${fmt(d)} ms median of ${REPEATS} = ${fmt((N / d) * 1000)} events/s (each: ${directMs.map((x) => fmt(x)).join(', ')})`,
    );
    console.log(
      `  pooled (haproxy -> 2 APIs -> pgbouncer transaction pooling -> Postgres) ${fmt(p)} ms median of ${REPEATS} = ${fmt((N / p) * 1000)} events/s (each: ${pooledMs.map((x) => fmt(x)).join(', ')})`,
    );
    console.log(
      `  ratio pooled / direct        ${fmt(ratio * 100, 1)} % of the direct rate (budget >= 90 %: ${budget('pooled ingest >= 90 % of direct', ratio >= 0.9)})`,
    );
  } finally {
    await lb?.stop();
    for (const api of apis) await api.stop();
    await bouncer?.stop();
  }
  reportBudgets('bench/pooled-ingest');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
