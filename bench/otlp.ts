// bench/otlp: OTLP data points per second through POST /v1/metrics (protobuf), decoded,
// tied to a run and stored in Postgres, with a few requests in flight as exporters send.
// Beside it, in the same run, two baselines: protobufjs decoding the same bodies (the
// generated code on its own reader, nothing stored), and a raw COPY of the rows those
// points become into a copy of metric_points with its index (nothing decoded).
// Usage: tsx otlp.ts [--points N] [--concurrency C] (DATABASE_URL, default the local test db)
import * as schema from '@meshbench/schema';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { budget, reportBudgets } from './lib/budget.ts';
import { decodeRequest, encodeRequest, ns, str } from './lib/otlp-data.ts';
import { DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const POINTS = arg('points', 3_000_000);
const CONCURRENCY = arg('concurrency', 4);
const PER_REQUEST = 10_000; // 100 metrics x 100 points
const TOKEN = 'bench-admin-token-0123456789';
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** Request k: 100 metrics (gauges, delta and cumulative sums), 100 points each. */
function body(runId: string, k: number, t0: number): Uint8Array {
  const metrics = [];
  for (let m = 0; m < 100; m++) {
    const points = Array.from({ length: 100 }, (_, p) => ({
      attributes: [str('node', `node-${(p % 10) + 10 * (m % 10)}`), str('az', `z${p % 3}`)],
      startTimeUnixNano: ns(t0),
      timeUnixNano: ns(t0 + k * 1000 + p),
      asDouble: (k * 31 + p * 7 + m) % 1000,
    }));
    const name = `bench.metric_${m}`;
    metrics.push(
      m % 3 === 0
        ? { name, gauge: { dataPoints: points } }
        : {
            name,
            sum: {
              isMonotonic: true,
              aggregationTemporality: m % 3 === 1 ? 1 : 2,
              dataPoints: points,
            },
          },
    );
  }
  return encodeRequest(runId, metrics);
}

async function main() {
  const api = await startApi({ DATABASE_URL: databaseUrl, MESHBENCH_ADMIN_TOKEN: TOKEN });
  const auth = { authorization: `Bearer ${TOKEN}` };
  try {
    const run = schema.run.parse(
      await (
        await fetch(`${api.url}/api/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth },
          body: JSON.stringify({ benchmark: 'bench', scenario: 'otlp', mesh: { name: 'consul' } }),
        })
      ).json(),
    );
    const requests = Math.ceil(POINTS / PER_REQUEST);
    const t0 = Date.now();
    // Bodies are encoded before the clock starts: the bench measures the server. Each is
    // another export (its own point times): the same export twice is stored once.
    const bodies = Array.from({ length: requests }, (_, k) => body(run.id, k, t0));
    const send = (k: number) =>
      fetch(`${api.url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', ...auth },
        body: bodies[k] as Uint8Array,
      }).then(async (r) => {
        const bytes = new Uint8Array(await r.arrayBuffer());
        if (r.status !== 200 || bytes.length > 0)
          throw new Error(`request ${k}: ${r.status}, ${bytes.length} response bytes`);
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

    console.log('\nbench/otlp');
    console.log(
      `  sent                      ${fmt(requests)} protobuf requests of ${fmt(PER_REQUEST)} data points (${fmt((bodies[0]?.length ?? 0) / 1024)} KiB each), ${CONCURRENCY} in flight`,
    );
    console.log(
      `  stored                    ${fmt(stored)} of ${fmt(requests * PER_REQUEST)} data points`,
    );
    console.log(
      `  decoded and stored        ${fmt((measured / ms) * 1000)} data points/s (${fmt(ms)} ms for ${fmt(measured)}; budget >= 250,000: ${budget('>= 250,000 data points/s', (measured / ms) * 1000 >= 250_000)})`,
    );
    console.log(`  API peak RSS              ${fmt(api.peakRssMiB())} MiB`);

    const rate = (measured / ms) * 1000;
    const decodeRate = decodeOnly(bodies);
    const copyRate = await rawCopy(run.id, 1_000_000);
    console.log(
      `  baseline: decode only     ${fmt(decodeRate)} data points/s (protobufjs, the generated code, whole requests, nothing stored)`,
    );
    console.log(
      `  baseline: raw COPY        ${fmt(copyRate)} rows/s (text COPY of 1,000,000 such points' rows into a copy of metric_points with its index, nothing decoded)`,
    );
    console.log(
      `  ratio                     ${fmt((rate / decodeRate) * 100, 1)} % of decode only, ${fmt((rate / copyRate) * 100, 1)} % of raw COPY`,
    );
  } finally {
    await api.stop();
  }
  reportBudgets('bench/otlp');
}

/** Data points/s of protobufjs decoding the bodies, for at least 1.5 s. */
function decodeOnly(bodies: Uint8Array[]): number {
  for (const b of bodies) decodeRequest(b); // warm-up
  let points = 0;
  const started = performance.now();
  while (performance.now() - started < 1500) {
    for (const b of bodies) {
      decodeRequest(b);
      points += PER_REQUEST;
    }
  }
  return (points / (performance.now() - started)) * 1000;
}

/** Rows/s of a text COPY of n gauge-like point rows (10,000 series) into a copy of metric_points. */
async function rawCopy(runId: string, n: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('drop table if exists bench_otlp_baseline');
  await client.query('create table bench_otlp_baseline (like metric_points including indexes)');
  const t0 = Date.parse('2026-02-01T10:00:00Z');
  const rows: string[] = [];
  let chunk = '';
  for (let i = 0; i < n; i++) {
    const v = (i * 7) % 1000;
    const t = new Date(t0 + Math.floor(i / 10_000) * 1000 + (i % 100)).toISOString();
    chunk += `${runId}\t${1_000_000 + (i % 10_000)}\t${t}\t0\t\\N\tbench\t1\t\\N\t${v}\t${v}\t${v}\n`;
    if (chunk.length > 256 * 1024) {
      rows.push(chunk);
      chunk = '';
    }
  }
  rows.push(chunk);
  const started = performance.now();
  const stream = client.query(
    copyFrom(
      'COPY bench_otlp_baseline (run_id, series_id, t, interval_ms, start_at, replica, count, sum, min, max, last) FROM STDIN',
    ),
  );
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
    (async () => {
      for (const c of rows) if (!stream.write(c)) await new Promise((r) => stream.once('drain', r));
      stream.end();
    })().catch(reject);
  });
  const ms = performance.now() - started;
  await client.query('drop table bench_otlp_baseline');
  await client.end();
  return (n / ms) * 1000;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
