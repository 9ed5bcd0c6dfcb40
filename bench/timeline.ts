// bench/timeline: the scale-up timeline of a 10,000-node run (40,000 lifecycle events) with
// 5 metric series over 60 minutes at 1 s, read at 1,000 points per series. Beside it, in the
// same run, the baseline: the rows that timeline is made of (the run's lifecycle phases and
// its series' points) read with node-postgres, nothing bucketed, nothing sent over HTTP.
// Usage: tsx timeline.ts (DATABASE_URL, default the local test db)
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { budget, reportBudgets } from './lib/budget.ts';
import { encodeRequest, ns } from './lib/otlp-data.ts';
import { DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const NODES = 10_000;
const SECONDS = 3600;
const TOKEN = 'bench-admin-token-0123456789';
const T0 = Date.UTC(2026, 2, 1, 0, 0, 0);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const iso = (ms: number) => new Date(T0 + ms).toISOString();

async function check(r: Response): Promise<string> {
  const text = await r.text();
  if (!r.ok) throw new Error(`${r.status} ${text}`);
  return text;
}

function series(runId: string): Uint8Array {
  const times = Array.from({ length: SECONDS }, (_, s) => T0 + s * 1000);
  const scaling = (s: number) => (s < 3000 ? 1 : 0.15);
  const gauge = (name: string, f: (s: number) => number) => ({
    name,
    gauge: { dataPoints: times.map((t, s) => ({ timeUnixNano: ns(t), asDouble: f(s) })) },
  });
  let applies = 0;
  return encodeRequest(runId, [
    gauge('consul.server.cpu_pct', (s) => 5 + 38 * scaling(s) + ((s * 7) % 5)),
    gauge('consul.server.memory_mb', (s) => 300 + s * 0.4),
    {
      name: 'consul.xds.pushes',
      sum: {
        isMonotonic: true,
        aggregationTemporality: 1,
        dataPoints: times.map((t, s) => ({
          startTimeUnixNano: ns(t - 1000),
          timeUnixNano: ns(t),
          asInt: Math.round(10 * scaling(s)) + (s % 3),
        })),
      },
    },
    {
      name: 'consul.raft.apply',
      sum: {
        isMonotonic: true,
        aggregationTemporality: 2,
        dataPoints: times.map((t, s) => {
          applies += 3 + (s % 4);
          return { startTimeUnixNano: ns(T0), timeUnixNano: ns(t), asInt: applies };
        }),
      },
    },
    {
      name: 'consul.xds.push_ms',
      histogram: {
        aggregationTemporality: 1,
        dataPoints: times.map((t, s) => ({
          startTimeUnixNano: ns(t - 1000),
          timeUnixNano: ns(t),
          count: 20,
          sum: 20 * (20 + 100 * scaling(s)),
          min: 2,
          max: 400,
          bucketCounts: [2, 6, 8, 3, 1],
          explicitBounds: [10, 50, 100, 250],
        })),
      },
    },
  ]);
}

async function main() {
  const api = await startApi({ DATABASE_URL: databaseUrl, MESHBENCH_ADMIN_TOKEN: TOKEN });
  const auth = { authorization: `Bearer ${TOKEN}` };
  try {
    const run = JSON.parse(
      await check(
        await fetch(`${api.url}/api/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth },
          body: JSON.stringify({
            benchmark: 'bench',
            scenario: 'timeline-10k',
            mesh: { name: 'consul' },
            topology: { nodes: NODES, instances: NODES * 3 },
            startedAt: iso(0),
            finishedAt: iso(SECONDS * 1000),
          }),
        }),
      ),
    ) as { id: string };
    const lines: string[] = [];
    for (let n = 0; n < NODES; n++) {
      const join = Math.round(5_000 + (3_000_000 * ((n * 2654435761) % 4294967296)) / 4294967296);
      const node = `node-${n}`;
      lines.push(
        JSON.stringify({ type: 'lifecycle', phase: 'joined', entity: node, at: iso(join) }),
      );
      for (let k = 0; k < 3; k++) {
        const alloc = `${node}-a${k}`;
        if (k === 0)
          lines.push(
            JSON.stringify({
              type: 'lifecycle',
              phase: 'scheduled',
              entity: alloc,
              at: iso(join + 2000),
            }),
          );
        else
          lines.push(
            JSON.stringify({
              type: 'lifecycle',
              phase: 'scheduled',
              entity: alloc,
              at: iso(join + 2000 + k),
            }),
          );
      }
    }
    await check(
      await fetch(`${api.url}/api/v1/runs/${run.id}/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          'idempotency-key': 'tl',
          ...auth,
        },
        body: gzipSync(lines.join('\n')),
      }),
    );
    await check(
      await fetch(`${api.url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', ...auth },
        body: series(run.id),
      }),
    );

    const url = `${api.url}/api/v1/runs/${run.id}/timeline?points=1000`;
    const first = JSON.parse(await check(await fetch(url))) as {
      bucketMs: number;
      phases: { phase: string; count: number; points: unknown[] }[];
      series: { name: string; points: unknown[] }[];
    };
    const samples: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t = performance.now();
      await check(await fetch(url));
      samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    const pointsUrl = `${api.url}/api/v1/runs/${run.id}/series`;
    const list = JSON.parse(await check(await fetch(pointsUrl))) as { id: string; name: string }[];
    const hist = list.find((s) => s.name === 'consul.xds.push_ms') as { id: string };
    const pSamples: number[] = [];
    for (let i = 0; i < 11; i++) {
      const t = performance.now();
      await check(
        await fetch(`${api.url}/api/v1/runs/${run.id}/series/${hist.id}/points?points=1000`),
      );
      pSamples.push(performance.now() - t);
    }
    pSamples.sort((a, b) => a - b);

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const raw: number[] = [];
    let rawRows = 0;
    for (let i = 0; i < 21; i++) {
      const t = performance.now();
      const phases = await client.query(
        'select phase, entities, attrs_total, firsts from lifecycle_phases where run_id = $1',
        [run.id],
      );
      const points = await client.query(
        `select series_id, t, interval_ms, start_at, count, sum, min, max, last, last_at
           from metric_points where run_id = $1 order by series_id, t`,
        [run.id],
      );
      raw.push(performance.now() - t);
      rawRows = (phases.rowCount ?? 0) + (points.rowCount ?? 0);
    }
    raw.sort((a, b) => a - b);
    if (process.argv.includes('--keep')) console.log(`  kept run ${run.id}`);
    else
      for (const t of ['metric_points', 'lifecycle_events', 'lifecycle_firsts', 'lifecycle_phases'])
        await client.query(`delete from ${t} where run_id = $1`, [run.id]);
    if (!process.argv.includes('--keep'))
      await client.query('delete from runs where id = $1', [run.id]);
    await client.end();

    console.log('\nbench/timeline');
    console.log(
      `  run                        ${fmt(NODES)} nodes, ${fmt(lines.length)} lifecycle events, 5 series x ${fmt(SECONDS)} points (1 s over 60 min)`,
    );
    console.log(
      `  response                   ${first.phases.map((p) => `${p.phase} ${fmt(p.count)}`).join(', ')}; ${first.series.length} series x ${fmt(first.series[0]?.points.length ?? 0)} points, bucket ${fmt(first.bucketMs)} ms`,
    );
    console.log(
      `  GET timeline?points=1000   ${fmt(samples[10] as number, 1)} ms median of 21, ${fmt(samples[18] as number, 1)} ms p90 (budget <= 100 ms: ${budget('timeline median <= 100 ms', (samples[10] as number) <= 100)})`,
    );
    console.log(
      `  baseline: raw rows         ${fmt(raw[10] as number, 1)} ms median of 21 (the ${fmt(rawRows)} rows it is made of, read with node-postgres); the timeline takes ${fmt(((samples[10] as number) / (raw[10] as number)) * 100, 0)} % of that`,
    );
    console.log(
      `  GET points?points=1000     ${fmt(pSamples[5] as number, 1)} ms median of 11 (histogram series, with p50/p90/p99 per bucket from merged sketches)`,
    );
  } finally {
    await api.stop();
  }
  reportBudgets('bench/timeline');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
