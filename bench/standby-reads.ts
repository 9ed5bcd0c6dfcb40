// bench/standby-reads: the reads that may lag (runs list, facets, headlines, a shared report,
// compare) served from a streaming standby (DATABASE_READ_URL) while the primary ingests the
// 178,000-observation change batch, beside the same reads served by the primary alone under
// the same ingest, in the same run: a throwaway primary (initdb) and its standby
// (pg_basebackup -R), Debian's Postgres, on ports of their own. A writer API posts the batch;
// two reader APIs (one with the standby, one without) take the same reads, alternated round
// by round. p99 by nearest rank (the product's one function), exact over every read timed.
// Budget: standby read p99 <= 100 ms during ingest.
// Usage: tsx standby-reads.ts [--observations N] [--rounds N] [--readers N]
import { gzipSync } from 'node:zlib';
import { nearestRank } from '@meshbench/api/nearest-rank';
import { makeCluster, type PgCluster } from '@meshbench/api/pg-cluster';
import pg from 'pg';
import { budget, reportBudgets } from './lib/budget.ts';
import { changeLine, observationBlock } from './lib/propagation-data.ts';
import { type ApiProcess, AUTH, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('observations', 178_000);
const ROUNDS = arg('rounds', 3);
/** Reads in flight at once against the reader under test. */
const READERS = arg('readers', 4);
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const withDb = (url: string, db: string) => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};

async function post(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...AUTH },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A finished run with one change of `n` observations, through the public API. */
async function seedRun(base: string, mesh: string, n: number): Promise<string> {
  const run = await post(base, '/runs', {
    benchmark: 'bench-standby',
    scenario: 'reads',
    mesh: { name: mesh },
  });
  const id = run.id as string;
  const events = await fetch(`${base}/api/v1/runs/${id}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', ...AUTH },
    body: `${changeLine('c1', n)}\n${observationBlock('c1', 0, n)}`,
  });
  if (!events.ok) throw new Error(`events: ${events.status} ${await events.text()}`);
  const finished = await fetch(`${base}/api/v1/runs/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', ...AUTH },
    body: JSON.stringify({ status: 'finished' }),
  });
  if (!finished.ok) throw new Error(`finish: ${finished.status} ${await finished.text()}`);
  return id;
}

/** Latencies (ms) of the reads `READERS` loops make against `base` until `until` settles. */
async function readWhile(base: string, paths: string[], until: Promise<unknown>) {
  let done = false;
  until.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  const ms: number[] = [];
  const byPath = new Map<string, number[]>();
  let errors = 0;
  const loop = async (k: number) => {
    for (let i = k; !done; i++) {
      const path = paths[i % paths.length] as string;
      const started = performance.now();
      const response = await fetch(`${base}/api/v1${path}`);
      await response.arrayBuffer();
      const took = performance.now() - started;
      if (response.ok) {
        ms.push(took);
        byPath.set(path, [...(byPath.get(path) ?? []), took]);
      } else errors++;
    }
  };
  await Promise.all(Array.from({ length: READERS }, (_, k) => loop(k)));
  return { ms, errors, byPath };
}

const p = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? (sorted[nearestRank(q, sorted.length) - 1] as number) : Number.NaN;
};

async function metric(base: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

async function main() {
  const body = gzipSync(`${changeLine('c1', N)}\n${observationBlock('c1', 0, N)}`);
  let primary: PgCluster | undefined;
  let standby: PgCluster | undefined;
  const apis: ApiProcess[] = [];
  try {
    primary = await makeCluster();
    const admin = new pg.Client({ connectionString: primary.url });
    await admin.connect();
    await admin.query('create database meshbench');
    await admin.end();
    standby = await makeCluster({ standbyOf: primary });
    const primaryDb = withDb(primary.url, 'meshbench');
    const standbyDb = withDb(standby.url, 'meshbench');
    const quiet = { MESHBENCH_READ_CACHE_MS: '0', MESHBENCH_ALERTS_RECHECK_MS: '0' };
    const writer = await startApi({ ...quiet, DATABASE_URL: primaryDb });
    apis.push(writer);
    const withStandby = await startApi({
      ...quiet,
      DATABASE_URL: primaryDb,
      DATABASE_READ_URL: standbyDb,
    });
    const primaryOnly = await startApi({ ...quiet, DATABASE_URL: primaryDb });
    apis.push(withStandby, primaryOnly);

    // What the reads read: runs of three meshes, a report and a compare of them.
    const runs: string[] = [];
    for (const mesh of ['consul', 'istio', 'linkerd'])
      runs.push(await seedRun(writer.url, mesh, 5000));
    const report = await post(writer.url, '/reports', { runs, title: 'bench' });
    const paths = [
      '/runs?benchmark=bench-standby',
      '/runs/facets',
      `/runs/headlines?ids=${runs.join(',')}`,
      `/reports/${report.slug as string}`,
      `/compare/comparability?runs=${runs.slice(0, 2).join(',')}`,
    ];
    // Warm both readers (compiled code, connections) outside the timing.
    for (const base of [withStandby.url, primaryOnly.url])
      await readWhile(base, paths, new Promise((r) => setTimeout(r, 1000)));

    /** One 178k batch into a new run through the writer; resolves when it is stored. */
    const ingest = async () => {
      const run = await post(writer.url, '/runs', {
        benchmark: 'bench-ingest',
        scenario: 'standby-reads',
        mesh: { name: 'consul' },
      });
      const started = performance.now();
      const response = await fetch(`${writer.url}/api/v1/runs/${run.id as string}/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          ...AUTH,
        },
        body,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`ingest: ${response.status} ${text}`);
      return performance.now() - started;
    };

    const during = { standby: [] as number[], primary: [] as number[] };
    const paths99 = { standby: new Map<string, number[]>(), primary: new Map<string, number[]>() };
    const ingestMs = { standby: [] as number[], primary: [] as number[] };
    let errors = 0;
    const before = {
      standby: await metric(
        withStandby.url,
        'meshbench_standby_reads_total',
        '{target="standby",reason="standby"}',
      ),
      lagging: await metric(
        withStandby.url,
        'meshbench_standby_reads_total',
        '{target="primary",reason="lagging"}',
      ),
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of ['standby', 'primary'] as const) {
        const base = which === 'standby' ? withStandby.url : primaryOnly.url;
        const ingesting = ingest();
        const got = await readWhile(base, paths, ingesting);
        ingestMs[which].push(await ingesting);
        during[which].push(...got.ms);
        for (const [path, xs] of got.byPath)
          paths99[which].set(path, [...(paths99[which].get(path) ?? []), ...xs]);
        errors += got.errors;
      }
    }
    const quietReads = await readWhile(
      primaryOnly.url,
      paths,
      new Promise((r) => setTimeout(r, 3000)),
    );
    const fromStandby =
      (await metric(
        withStandby.url,
        'meshbench_standby_reads_total',
        '{target="standby",reason="standby"}',
      )) - before.standby;
    const lagging =
      (await metric(
        withStandby.url,
        'meshbench_standby_reads_total',
        '{target="primary",reason="lagging"}',
      )) - before.lagging;

    const s99 = p(during.standby, 99);
    const p99 = p(during.primary, 99);
    const line = (name: string, xs: number[]) =>
      `  ${name.padEnd(44)} p50 ${fmt(p(xs, 50), 1).padStart(6)} ms  p99 ${fmt(p(xs, 99), 1).padStart(6)} ms  max ${fmt(Math.max(...xs), 1).padStart(6)} ms  (${fmt(xs.length)} reads)`;
    const median = (xs: number[]) =>
      [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    console.log('\nbench/standby-reads');
    console.log(
      `  ingest: ${ROUNDS} x ${fmt(N)} observations per side (gzip ${fmt(body.length / 1024 / 1024, 1)} MiB), median ${fmt(median(ingestMs.standby))} ms / ${fmt(median(ingestMs.primary))} ms; ${READERS} readers; ${paths.length} read paths (list, facets, headlines, report, compare)`,
    );
    console.log(line('reads from the standby, primary ingesting', during.standby));
    console.log(line('same reads on the primary alone, ingesting', during.primary));
    console.log(line('same reads on the primary alone, quiet', quietReads.ms));
    console.log(
      `  standby p99 / primary-alone p99 (ingesting)  ${fmt((s99 / p99) * 100, 1)} %; reads the standby served ${fmt(fromStandby)} of ${fmt(during.standby.length)} (${fmt(lagging)} sent to the primary as lagging); ${errors + quietReads.errors} errors`,
    );
    for (const path of paths)
      console.log(
        `    p99 ${fmt(p(paths99.standby.get(path) ?? [], 99), 1).padStart(7)} ms standby, ${fmt(p(paths99.primary.get(path) ?? [], 99), 1).padStart(7)} ms primary alone  ${path.replace(/[0-9a-f-]{36}/g, '{id}').slice(0, 60)}`,
      );
    console.log(
      `  budget: standby read p99 <= 100 ms while the primary ingests: ${budget('standby read p99 <= 100 ms', s99 <= 100 && errors === 0)}`,
    );
  } finally {
    for (const api of apis) await api.stop();
    for (const c of [standby, primary]) {
      await c?.stopByPid();
      c?.remove();
    }
  }
  reportBudgets('bench/standby-reads');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
