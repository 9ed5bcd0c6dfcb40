// bench/reads: what the pages read, under load. The demo dataset (posted through the public
// API, as `npm start` loads it) is read by autocannon with a mix of 16 requests: the runs list
// and its filters, a propagation run's page (run, changes, summaries linear and log, tail,
// gate), a data-plane run's results, a scale-up run's series and timeline, a three-run
// compare, a shared report and the history. Beside it, in the same run and the same way, a
// Fastify hello-world: the ceiling of one Node process on this machine.
// Budget (Postgres): >= 10 % of the hello-world's requests/s, p99 <= 100 ms, no errors.
// The embedded database's figures are printed too, without a budget.
// Usage: tsx reads.ts [--seconds 10] [--connections 10] [--embedded-only | --postgres-only]
//   [--per-read: each read alone too, 2 s each]

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDemo } from '@meshbench/api/demo';
import * as schema from '@meshbench/schema';
import autocannon from 'autocannon';
import pg from 'pg';
import { type ApiProcess, BENCH_TOKEN, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 10);
const CONNECTIONS = arg('connections', 10);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

async function load(url: string, paths: string[], seconds: number): Promise<Figures> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: paths.map((path) => ({ method: 'GET', path })),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}

/** The 16 reads, from the demo's runs: what the pages ask for. */
async function mix(url: string): Promise<string[]> {
  const get = async <T>(path: string, parser: { parse(value: unknown): T }): Promise<T> => {
    const r = await fetch(`${url}${path}`);
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return parser.parse(await r.json());
  };
  const { runs } = await get(
    '/api/v1/runs?limit=100&sort=-startedAt&label=source:demo',
    schema.runList,
  );
  // The three meshes' endpoint change (one change id in each), as the compare page reads it.
  const propagation = runs.filter((r) => r.changes > 0 && r.scenario === 'endpoint-propagation');
  const prop = propagation[0];
  const dataPlane = runs.find((r) => r.benchmark === 'data-plane');
  const scaleUp = runs.find((r) => r.scenario === 'scale-up' && r.benchmark === 'global-scale');
  if (!prop || !dataPlane || !scaleUp || propagation.length < 3) {
    throw new Error('the demo dataset is not complete');
  }
  const [change] = await get(`/api/v1/runs/${prop.id}/changes`, schema.changeList);
  const c = change?.id as string;
  const created = await fetch(`${url}/api/v1/reports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` },
    body: JSON.stringify({ runs: propagation.slice(0, 3).map((r) => r.id) }),
  });
  const { slug } = schema.createdReport.parse(await created.json());
  const compared = propagation.slice(1, 3);
  const summary = (id: string, scale: string) =>
    `/api/v1/runs/${id}/changes/${c}/propagation?percentiles=50,90,96,99,99.9&withinMs=1000&bins=60&scale=${scale}`;
  return [
    '/api/v1/runs?limit=50&sort=-startedAt',
    '/api/v1/runs/facets',
    `/api/v1/runs/${prop.id}`,
    `/api/v1/runs/${prop.id}/changes`,
    summary(prop.id, 'linear'),
    summary(prop.id, 'log'),
    `/api/v1/runs/${prop.id}/changes/${c}/tail?thresholdMs=1000`,
    `/api/v1/runs/${prop.id}/gate`,
    `/api/v1/runs/${dataPlane.id}/results`,
    `/api/v1/runs/${scaleUp.id}/series`,
    `/api/v1/runs/${scaleUp.id}/timeline?points=1000`,
    `/api/v1/runs/${compared[0]?.id}`,
    summary(compared[0]?.id as string, 'log'),
    summary(compared[1]?.id as string, 'log'),
    `/api/v1/reports/${slug}`,
    `/api/v1/history?benchmark=${encodeURIComponent(prop.benchmark)}&metric=p99`,
  ];
}

/** The reads answer 2xx, except a run's gate, which is 404 for runs without thresholds. */
async function check(url: string, paths: string[]): Promise<string[]> {
  const notFound: string[] = [];
  for (const path of paths) {
    const r = await fetch(`${url}${path}`);
    await r.arrayBuffer();
    if (r.status === 404 && path.endsWith('/gate')) notFound.push(path);
    else if (!r.ok) throw new Error(`${path}: ${r.status}`);
  }
  return notFound;
}

async function helloWorld(): Promise<{ url: string; child: ChildProcess }> {
  const code = `
    const app = require('fastify')();
    app.get('/*', async () => ({ hello: 'world' }));
    app.listen({ port: 0, host: '127.0.0.1' }).then((a) => console.log(a));`;
  const child = spawn(process.execPath, ['-e', code], {
    cwd: import.meta.dirname,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (c) => reject(new Error(`hello-world exited ${c}`)));
  });
  return { url, child };
}

async function measure(name: string, api: ApiProcess, hello: string, paths: string[]) {
  const without = await check(api.url, paths);
  // The gate of a run with no thresholds is a 404 the run page asks for: left out of the mix.
  const reads = paths.filter((p) => !without.includes(p));
  await load(api.url, reads, 2); // warm-up: JIT, caches, connections
  await load(hello, ['/'], 2);
  const base = await load(hello, ['/'], SECONDS);
  const got = await load(api.url, reads, SECONDS);
  const ratio = got.rps / base.rps;
  console.log(`\n${name}: ${reads.length} reads, ${CONNECTIONS} connections, ${SECONDS} s each`);
  console.log(
    `  reads        ${fmt(got.rps)} req/s, p50 ${fmt(got.p50, 1)} ms, p99 ${fmt(got.p99, 1)} ms, ${got.errors} errors, ${got.non2xx} non-2xx of ${fmt(got.requests)}`,
  );
  console.log(
    `  hello-world  ${fmt(base.rps)} req/s, p50 ${fmt(base.p50, 1)} ms, p99 ${fmt(base.p99, 1)} ms (same run)`,
  );
  console.log(`  ratio        ${fmt(ratio * 100, 1)} % of hello-world`);
  if (without.length > 0) console.log(`  (left out, 404 by design: ${without.join(', ')})`);
  if (args.includes('--per-read')) {
    for (const path of reads) {
      const one = await load(api.url, [path], 2);
      console.log(
        `    ${fmt(one.rps).padStart(6)} req/s  p99 ${fmt(one.p99, 1).padStart(6)} ms  ${path}`,
      );
    }
  }
  return { ...got, ratio };
}

/**
 * The demo loaded into a database, then read twice: as deployed (the read cache on), and
 * with every answer computed afresh (MESHBENCH_READ_CACHE_MS=0), for the record.
 */
async function both(name: string, env: Record<string, string | undefined>, hello: string) {
  let paths: string[] = [];
  const cached = await startApi(env);
  try {
    await loadDemo({ baseUrl: cached.url, token: BENCH_TOKEN, statsdPort: 0 });
    paths = await mix(cached.url);
    const figures = await measure(`${name}, read cache on (default)`, cached, hello, paths);
    const fresh = await startApi({ ...env, MESHBENCH_READ_CACHE_MS: '0' });
    try {
      await measure(`${name}, read cache off: every answer computed`, fresh, hello, paths);
    } finally {
      await fresh.stop();
    }
    return figures;
  } finally {
    await cached.stop();
  }
}

async function main() {
  const hello = await helloWorld();
  let failed = false;
  try {
    if (!args.includes('--postgres-only')) {
      const dataDir = mkdtempSync(join(tmpdir(), 'meshbench-bench-reads-'));
      await both(
        'embedded database',
        { MESHBENCH_DATA_DIR: dataDir, DATABASE_URL: undefined },
        hello.url,
      );
    }
    if (!args.includes('--embedded-only')) {
      // A database of its own: the demo alone, as a new deployment has it.
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      const name = `meshbench_bench_reads_${process.pid}`;
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`create database ${name}`);
      const url = new URL(databaseUrl);
      url.pathname = `/${name}`;
      try {
        const pgFigures = await both('Postgres', { DATABASE_URL: url.toString() }, hello.url);
        const misses = [
          pgFigures.ratio < 0.1 && `req/s ${fmt(pgFigures.ratio * 100, 1)} % of hello-world < 10 %`,
          pgFigures.p99 > 100 && `p99 ${fmt(pgFigures.p99, 1)} ms > 100 ms`,
          pgFigures.errors + pgFigures.non2xx > 0 &&
            `${pgFigures.errors + pgFigures.non2xx} errors`,
        ].filter(Boolean);
        console.log(
          `  budget       >= 10 % of hello-world, p99 <= 100 ms, 0 errors: ${misses.length ? `MISSED (${misses.join('; ')})` : 'met'}`,
        );
        failed = misses.length > 0;
      } finally {
        await admin.query(`drop database if exists ${name}`);
        await admin.end();
      }
    }
  } finally {
    hello.child.kill();
  }
  if (failed) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
