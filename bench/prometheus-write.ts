// bench/prometheus-write: samples per second through POST /api/v1/write (Remote-Write 1.0,
// snappy protobuf, as Prometheus 2.x sends it: 2,000 samples a request, a few in flight),
// decompressed, decoded, grouped (classic histogram families become one row each), tied to
// a run and stored in Postgres. Beside it, in the same run, a raw COPY of the same rows
// (what those samples become) into a copy of metric_points with its index, nothing decoded.
// Usage: tsx prometheus-write.ts [--samples N] [--concurrency C] (DATABASE_URL, default the
// local test db)
import { REMOTE_WRITE_V1_TYPE } from '@meshbench/api/remote-write';
import * as schema from '@meshbench/schema';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { budget, reportBudgets } from './lib/budget.ts';
import {
  BUCKETS,
  body,
  COUNTERS,
  FAMILIES,
  GAUGES,
  PER_REQUEST,
  ROWS_PER_REQUEST,
} from './lib/remote-write-bodies.ts';
import { AUTH, BENCH_TOKEN, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SAMPLES = arg('samples', 2_000_000);
const CONCURRENCY = arg('concurrency', 4);
const BUDGET = 200_000;
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function main() {
  const api = await startApi({ DATABASE_URL: databaseUrl, MESHBENCH_ADMIN_TOKEN: BENCH_TOKEN });
  try {
    const run = schema.run.parse(
      await (
        await fetch(`${api.url}/api/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...AUTH },
          body: JSON.stringify({
            benchmark: 'bench',
            scenario: 'prometheus-write',
            mesh: { name: 'istio' },
            startedAt: new Date(Date.now() - 60_000).toISOString(),
          }),
        })
      ).json(),
    );
    const requests = Math.ceil(SAMPLES / PER_REQUEST);
    const t0 = Date.now() - 30_000;
    // Bodies are encoded before the clock starts: the bench measures the server.
    const bodies = Array.from({ length: requests }, (_, k) => body(run.id, k, t0));
    const send = (k: number) =>
      fetch(`${api.url}/api/v1/write`, {
        method: 'POST',
        headers: {
          'content-type': REMOTE_WRITE_V1_TYPE,
          'content-encoding': 'snappy',
          'x-prometheus-remote-write-version': '0.1.0',
          ...AUTH,
        },
        body: bodies[k] as Buffer,
      }).then(async (r) => {
        const text = await r.text();
        if (r.status !== 204) throw new Error(`request ${k}: ${r.status} ${text}`);
      });
    await send(0); // warm-up: series created, caches filled
    let next = 1;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests) await send(next++);
      }),
    );
    const ms = performance.now() - started;
    const measured = (requests - 1) * PER_REQUEST;
    const rate = (measured / ms) * 1000;

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query(
      'select count(*)::int as n from metric_points where run_id = $1',
      [run.id],
    );
    const stored = rows[0].n as number;
    await client.query('delete from metric_points where run_id = $1', [run.id]);
    await client.query('delete from runs where id = $1', [run.id]);
    await client.end();

    const copyRows = (requests - 1) * ROWS_PER_REQUEST;
    const copyMs = await rawCopy(run.id, copyRows);
    const copySamples = (measured / copyMs) * 1000;
    console.log('\nbench/prometheus-write');
    console.log(
      `  sent                      ${fmt(requests)} Remote-Write 1.0 requests of ${fmt(PER_REQUEST)} samples (${fmt((bodies[0]?.length ?? 0) / 1024)} KiB snappy each), ${CONCURRENCY} in flight`,
    );
    console.log(
      `  stored                    ${fmt(stored)} of ${fmt(requests * ROWS_PER_REQUEST)} rows (${COUNTERS} counters, ${GAUGES} gauges, ${FAMILIES} histogram families of ${BUCKETS.length + 2} series a request)`,
    );
    console.log(
      `  decoded and stored        ${fmt(rate)} samples/s (${fmt(ms)} ms for ${fmt(measured)}; budget >= ${fmt(BUDGET)}: ${budget(`>= ${fmt(BUDGET)} samples/s`, rate >= BUDGET)})`,
    );
    console.log(`  API peak RSS              ${fmt(api.peakRssMiB())} MiB`);
    console.log(
      `  baseline: raw COPY        ${fmt((copyRows / copyMs) * 1000)} rows/s: the same ${fmt(copyRows)} rows in ${fmt(copyMs)} ms, ${fmt(copySamples)} samples/s (text COPY into a copy of metric_points with its index, nothing decoded)`,
    );
    console.log(`  ratio                     ${fmt((rate / copySamples) * 100, 1)} % of raw COPY`);
  } finally {
    await api.stop();
  }
  reportBudgets('bench/prometheus-write');
}

/** Ms of a text COPY of n point rows of this shape (the bench's series) into a copy of metric_points. */
async function rawCopy(runId: string, n: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('drop table if exists bench_prw_baseline');
  await client.query('create table bench_prw_baseline (like metric_points including indexes)');
  const t0 = Date.parse('2026-02-01T10:00:00Z');
  const chunks: string[] = [];
  let chunk = '';
  for (let i = 0; i < n; i++) {
    const k = Math.floor(i / ROWS_PER_REQUEST);
    const s = i % ROWS_PER_REQUEST;
    const t = new Date(t0 + k * 1000).toISOString();
    const v = k * 10 + s;
    chunk += `${runId}\t${1_000_000 + s}\t${t}\t0\t1970-01-01T00:00:00Z\t\t1\t\\N\t${v}\t${v}\t${v}\n`;
    if (chunk.length > 256 * 1024) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  chunks.push(chunk);
  const started = performance.now();
  const stream = client.query(
    copyFrom(
      'COPY bench_prw_baseline (run_id, series_id, t, interval_ms, start_at, replica, count, sum, min, max, last) FROM STDIN',
    ),
  );
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
    (async () => {
      for (const c of chunks)
        if (!stream.write(c)) await new Promise((r) => stream.once('drain', r));
      stream.end();
    })().catch(reject);
  });
  const ms = performance.now() - started;
  await client.query('drop table bench_prw_baseline');
  await client.end();
  return ms;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
