// bench/otlp: OTLP data points per second through POST /v1/metrics (protobuf), decoded,
// tied to a run and stored in Postgres, with a few requests in flight as exporters send.
// Usage: tsx otlp.ts [--points N] [--concurrency C] (DATABASE_URL, default the local test db)
import pg from 'pg';
import { encodeRequest, ns, str } from './lib/otlp-data.ts';
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
    const run = (await (
      await fetch(`${api.url}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ benchmark: 'bench', scenario: 'otlp', mesh: { name: 'consul' } }),
      })
    ).json()) as { id: string };
    const requests = Math.ceil(POINTS / PER_REQUEST);
    const t0 = Date.now();
    // Bodies are encoded before the clock starts: the bench measures the server.
    const bodies = Array.from({ length: Math.min(requests, 40) }, (_, k) => body(run.id, k, t0));
    const send = (k: number) =>
      fetch(`${api.url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', ...auth },
        body: bodies[k % bodies.length] as Uint8Array,
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
      `  decoded and stored        ${fmt((measured / ms) * 1000)} data points/s (${fmt(ms)} ms for ${fmt(measured)}; budget >= 250,000)`,
    );
    console.log(`  API peak RSS              ${fmt(api.peakRssMiB())} MiB`);
  } finally {
    await api.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
