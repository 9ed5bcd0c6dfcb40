// bench/history: GET /history over one series of 1,000 finished propagation runs (one
// change, 100 proxies each; P99 stepping every 150 runs), with the change points of the
// series. First read: each run's history metrics computed (its propagation summary) and
// kept (run_metrics); then the reads a page makes, from what is kept. Baseline, same run:
// the 1,000 runs' rows read with node-postgres (the list the history starts from).
// Budget (issue 16): the whole history of one series of 1,000 runs in <= 200 ms.
// Usage: tsx history.ts [runs] (DATABASE_URL, default the local test db)
import pg from 'pg';
import { budget, reportBudgets } from './lib/budget.ts';
import { benchClient } from './lib/client.ts';
import { DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const RUNS = Number(process.argv[2] ?? 1000);
const TOKEN = 'bench-admin-token-0123456789';
const T0 = Date.UTC(2026, 0, 1);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const _auth = { authorization: `Bearer ${TOKEN}` };

async function check(r: Response): Promise<string> {
  const text = await r.text();
  if (!r.ok) throw new Error(`${r.status} ${text}`);
  return text;
}

/** 100 proxies at 1..98 ms and two at the run's P99, which steps every 150 runs. */
function events(i: number): string {
  const p99 = 100 * (1 + 0.15 * Math.floor(i / 150)) + ((i * 7) % 5);
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  const latencies = [...Array.from({ length: 98 }, (_, k) => k + 1), p99, p99 + 1];
  return [
    { type: 'change', id: 'c1', kind: 'endpoint', target: 'x', action: 'delete', at: at(0) },
    ...latencies.map((ms, k) => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${k}`,
      at: at(ms),
    })),
  ]
    .map((e) => JSON.stringify(e))
    .join('\n');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main() {
  const api = await startApi({ DATABASE_URL: databaseUrl, MESHBENCH_ADMIN_TOKEN: TOKEN });
  const benchmark = `bench-history-${Date.now()}`;
  const api$ = benchClient(api, TOKEN);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const t = performance.now();
    for (let i = 0; i < RUNS; i++) {
      const run = await api$.runs.create({
        benchmark,
        scenario: 'nightly',
        mesh: { name: 'consul' },
        labels: { branch: 'main' },
        startedAt: new Date(T0 + i * 86_400_000).toISOString(),
      });
      await api$.runs.postEvents(run.id, { body: events(i), contentType: 'application/x-ndjson' });
    }
    // Finished in SQL: 1,000 finishes through PATCH would each run the gate and the alerting
    // over their last 100 runs, which is not what this bench measures.
    await client.query(
      `update runs set status = 'finished', finished_at = started_at + interval '1 minute'
        where benchmark = $1`,
      [benchmark],
    );
    console.log(`history: ${RUNS} runs posted in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const url = `${api.url}/api/v1/history?benchmark=${benchmark}&metric=p99&limit=${RUNS}`;
    let t1 = performance.now();
    const first = JSON.parse(await check(await fetch(url))) as {
      points: { value: number | null }[];
      changePoints: unknown[];
    };
    const coldMs = performance.now() - t1;
    const warm: number[] = [];
    for (let i = 0; i < 11; i++) {
      t1 = performance.now();
      await check(await fetch(url));
      warm.push(performance.now() - t1);
    }
    const other: number[] = [];
    for (const metric of ['p50', 'within1s', 'max']) {
      t1 = performance.now();
      await check(await fetch(url.replace('metric=p99', `metric=${metric}`)));
      other.push(performance.now() - t1);
    }
    const base: number[] = [];
    for (let i = 0; i < 11; i++) {
      t1 = performance.now();
      await client.query(
        'select * from runs where benchmark = $1 order by started_at desc limit $2',
        [benchmark, RUNS],
      );
      base.push(performance.now() - t1);
    }
    const ms = median(warm);
    const baseMs = median(base);
    const valued = first.points.filter((p) => p.value !== null).length;
    console.log(
      `  ${first.points.length} points (${valued} with a P99), ${first.changePoints.length} change points`,
    );
    console.log(
      `  first read       ${coldMs.toFixed(0)} ms (every run's metrics computed and kept)`,
    );
    console.log(
      `  GET /history     ${ms.toFixed(1)} ms (median of ${warm.length})  budget <= 200 ms: ${budget('GET /history of 1,000 runs <= 200 ms', ms <= 200)}`,
    );
    console.log(
      `  other metrics    ${other.map((x) => x.toFixed(1)).join(', ')} ms (p50, within1s, max)`,
    );
    console.log(
      `  baseline         ${baseMs.toFixed(1)} ms (the ${RUNS} runs' rows with node-postgres)  ratio ${(ms / baseMs).toFixed(2)}x`,
    );
  } finally {
    if (!process.argv.includes('--keep')) {
      const tables = await client.query<{ table_name: string }>(
        `select table_name from information_schema.columns
          where column_name = 'run_id' and table_schema = current_schema()`,
      );
      for (const { table_name } of tables.rows)
        await client.query(
          `delete from "${table_name}" where run_id in (select id from runs where benchmark = $1)`,
          [benchmark],
        );
      await client.query('delete from runs where benchmark = $1', [benchmark]);
    }
    await client.end();
    await api.stop();
  }
  reportBudgets('history');
}

await main();
