// A real streaming standby under the API (DATABASE_READ_URL): a throwaway primary (initdb on
// its own port) and a standby of it (pg_basebackup -R, on another), both Debian's Postgres.
// The list, report, compare, history and export reads are served by the standby (its own
// statement log shows them); a standby whose replay is paused never shows a writer an answer
// without its write, and past the lag bound shows no one; a standby that is down leaves the
// reads answered by the primary, and the API's log and /metrics say so.
import { openDatabase, sql } from '@meshbench/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiProcess, startApiProcess } from '../test/api-process.ts';
import { canMakeClusters, makeCluster, type PgCluster } from '../test/pg-cluster.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MAX_LAG_MS = 1000;
const BENCHMARK = 'standby-reads';

/** psql-free SQL on one of the clusters: a short-lived pg client. */
async function query<T>(url: string, text: string): Promise<T[]> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

const withDb = (url: string, db: string) => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};

/** A counter or gauge of /metrics, by its labels (all of them, in order). */
async function metric(api: ApiProcess, name: string, labels = ''): Promise<number | undefined> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

interface Written {
  runId: string;
  slug: string;
  lsn: string;
}

/** A run with a change, its observations and a lifecycle, finished, and a report of it. */
async function writeRun(api: ApiProcess, mesh: string): Promise<Written> {
  const created = (await api.json('/runs', {
    method: 'POST',
    body: JSON.stringify({
      benchmark: BENCHMARK,
      scenario: 'endpoint',
      mesh: { name: mesh, version: '1.0.0' },
      startedAt: iso(0),
    }),
  })) as { id: string };
  const lines = [
    { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'add', at: iso(1000) },
    ...Array.from({ length: 200 }, (_, i) => ({
      type: 'observation',
      change: 'c1',
      proxy: `p-${i}`,
      node: `n-${i % 10}`,
      at: iso(1000 + 5 * i + 3),
    })),
    { type: 'lifecycle', phase: 'joined', entity: 'n-1', node: 'n-1', at: iso(500) },
  ];
  const posted = await fetch(`${api.url}/api/v1/runs/${created.id}/events`, {
    method: 'POST',
    headers: {
      authorization: `Bearer faults-admin-token-0123456789`,
      'content-type': 'application/x-ndjson',
    },
    body: lines.map((l) => JSON.stringify(l)).join('\n'),
  });
  expect(posted.status).toBe(200);
  await api.json(`/runs/${created.id}`, {
    method: 'PATCH',
    body: JSON.stringify({ finishedAt: iso(60_000), status: 'finished' }),
  });
  const report = await fetch(`${api.url}/api/v1/reports`, {
    method: 'POST',
    headers: {
      authorization: `Bearer faults-admin-token-0123456789`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ runs: [created.id], title: `${mesh} on a standby` }),
  });
  expect(report.status).toBe(201);
  const lsn = report.headers.get('meshbench-lsn');
  expect(lsn, 'a write answers with the primary’s WAL position').toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
  return {
    runId: created.id,
    slug: ((await report.json()) as { slug: string }).slug,
    lsn: lsn as string,
  };
}

/** The reads routed to the standby, each as its status and body. */
const reads = (w: Written, other: string) => [
  `/runs?benchmark=${BENCHMARK}&sort=startedAt`,
  '/runs/facets',
  `/runs/headlines?ids=${w.runId}`,
  `/reports/${w.slug}`,
  `/compare/comparability?runs=${w.runId},${other}`,
  `/runs/${w.runId}/events`,
  `/runs/${w.runId}/changes/c1/perfetto`,
];

async function answer(api: ApiProcess, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.url}/api/v1${path}`, {
    headers: { authorization: 'Bearer faults-admin-token-0123456789', ...headers },
  });
  const body = Buffer.from(await response.arrayBuffer()).toString('base64');
  return { status: response.status, body };
}

async function replayed(standbyUrl: string, lsn: string, timeoutMs = 20_000) {
  for (const start = Date.now(); Date.now() - start < timeoutMs; ) {
    const [row] = await query<{ ok: boolean }>(
      standbyUrl,
      `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as ok`,
    );
    if (row?.ok) return;
    await sleep(50);
  }
  throw new Error(`the standby did not replay ${lsn} in ${timeoutMs} ms`);
}

const url = process.env.DATABASE_URL;
const runnable = Boolean(url) && canMakeClusters;
const title = runnable
  ? 'reads from a streaming standby (DATABASE_READ_URL)'
  : `reads from a streaming standby: skipped, ${url ? 'no Debian PostgreSQL binaries' : 'DATABASE_URL is unset (a Postgres-only suite)'}`;

describe.skipIf(!runnable)(title, () => {
  let primary: PgCluster;
  let standby: PgCluster;
  /** The API with the standby, and one on the primary alone (the answers to match). */
  let api: ApiProcess;
  let direct: ApiProcess;
  let first: Written;
  let second: Written;
  let primaryDb: string;
  let standbyDb: string;

  beforeAll(async () => {
    primary = await makeCluster();
    await query(primary.url, 'create database meshbench');
    // Every statement the standby runs is in its log: the proof that a read went there.
    standby = await makeCluster({ standbyOf: primary, settings: ['log_statement=all'] });
    primaryDb = withDb(primary.url, 'meshbench');
    standbyDb = withDb(standby.url, 'meshbench');
    const env = { MESHBENCH_READ_CACHE_MS: '0', MESHBENCH_ALERTS_RECHECK_MS: '0' };
    direct = await startApiProcess({ ...env, DATABASE_URL: primaryDb });
    api = await startApiProcess({
      ...env,
      DATABASE_URL: primaryDb,
      DATABASE_READ_URL: standbyDb,
      MESHBENCH_READ_MAX_LAG_MS: String(MAX_LAG_MS),
    });
    first = await writeRun(api, 'consul');
    second = await writeRun(api, 'istio');
    await replayed(standbyDb, second.lsn);
  });

  afterAll(async () => {
    for (const p of [api, direct]) {
      if (p && p.child.exitCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
    // Stopped by PID, then their directories removed.
    for (const c of [standby, primary]) {
      await c?.stopByPid();
      c?.remove();
    }
  });

  it('serves the list, report, compare, history and export reads from the standby, as the primary would', async () => {
    const before =
      (await metric(api, 'meshbench_standby_reads_total', '{target="standby",reason="standby"}')) ??
      0;
    const paths = reads(second, first.runId);
    for (const path of paths) {
      const viaStandby = await answer(api, path);
      const viaPrimary = await answer(direct, path);
      expect(viaStandby.status, path).toBe(200);
      expect(viaStandby.body, path).toBe(viaPrimary.body);
    }
    const after = await metric(
      api,
      'meshbench_standby_reads_total',
      '{target="standby",reason="standby"}',
    );
    expect(after).toBe(before + paths.length);
    expect(await metric(api, 'meshbench_standby_up')).toBe(1);
    expect(await metric(api, 'meshbench_standby_writes_on_read_total')).toBe(0);
    // The history still keeps facts on read: the primary's for now.
    const history = `/history?benchmark=${BENCHMARK}`;
    expect(await answer(api, history)).toEqual(await answer(direct, history));
    expect(
      await metric(api, 'meshbench_standby_reads_total', '{target="standby",reason="standby"}'),
    ).toBe(after);
    // The standby ran them: its statement log has the report's slug and the run's id as parameters.
    const log = standby.log();
    expect(log).toContain(second.slug);
    expect(log).toContain(second.runId);
  });

  it('never shows a writer an answer without its write while replay is paused, and no one past the lag bound', async () => {
    await query(standbyDb, 'select pg_wal_replay_pause()');
    try {
      const third = await writeRun(api, 'linkerd');
      const behind =
        (await metric(
          api,
          'meshbench_standby_reads_total',
          '{target="primary",reason="behind"}',
        )) ?? 0;
      // The writer sends its position back (header, or the cookie a browser keeps): the
      // standby has not replayed it, so the primary answers.
      const list = `/runs?benchmark=${BENCHMARK}&sort=startedAt`;
      const mine = await answer(api, list, { 'meshbench-lsn': third.lsn });
      expect(mine).toEqual(await answer(direct, list));
      expect(Buffer.from(mine.body, 'base64').toString()).toContain(third.runId);
      const report = await answer(api, `/reports/${third.slug}`, {
        cookie: `meshbench_lsn=${third.lsn}`,
      });
      expect(report.status, 'a report just created is found').toBe(200);
      expect(report).toEqual(await answer(direct, `/reports/${third.slug}`));
      expect(
        await metric(api, 'meshbench_standby_reads_total', '{target="primary",reason="behind"}'),
      ).toBe(behind + 2);
      // A malformed position is the caller's error, named.
      const bad = await fetch(`${api.url}/api/v1${list}`, { headers: { 'meshbench-lsn': 'soon' } });
      expect(bad.status).toBe(400);
      expect(await bad.text()).toContain('meshbench-lsn');

      // Past the bound (and a probe), a reader that sent nothing gets the primary's answer too.
      await sleep(MAX_LAG_MS + 1500);
      expect(await metric(api, 'meshbench_standby_lag_bytes')).toBeGreaterThan(0);
      const lagging =
        (await metric(
          api,
          'meshbench_standby_reads_total',
          '{target="primary",reason="lagging"}',
        )) ?? 0;
      for (const path of reads(third, first.runId)) {
        const got = await answer(api, path);
        expect(got, path).toEqual(await answer(direct, path));
      }
      expect(
        await metric(api, 'meshbench_standby_reads_total', '{target="primary",reason="lagging"}'),
      ).toBe(lagging + reads(third, first.runId).length);
    } finally {
      await query(standbyDb, 'select pg_wal_replay_resume()');
    }
    // Caught up again: back to the standby.
    const [{ lsn } = { lsn: '' }] = await query<{ lsn: string }>(
      primaryDb,
      'select pg_current_wal_flush_lsn()::text as lsn',
    );
    await replayed(standbyDb, lsn);
    await sleep(600);
    const back =
      (await metric(api, 'meshbench_standby_reads_total', '{target="standby",reason="standby"}')) ??
      0;
    expect((await answer(api, '/runs/facets')).status).toBe(200);
    expect(
      await metric(api, 'meshbench_standby_reads_total', '{target="standby",reason="standby"}'),
    ).toBe(back + 1);
  });

  it('makes a write of a standby read again on the primary (a statement, or its whole transaction)', async () => {
    const database = await openDatabase({ url: primaryDb, readUrl: standbyDb });
    try {
      await database.standby?.probe();
      await database.db.execute(sql`create table if not exists read_writes (n int)`);
      // Awaited inside: a drizzle query runs when awaited, not when built.
      const inRead = <T>(fn: () => PromiseLike<T>) =>
        database.standby?.run('standby', async () => await fn()) ??
        Promise.reject(new Error('no standby'));
      // Read on the standby, then written: refused there (25006), made on the primary.
      const n = await inRead(() =>
        database.transaction(async (tx) => {
          const [{ recovery } = { recovery: false }] = (
            (await tx.db.execute(sql`select pg_is_in_recovery() as recovery`)) as unknown as {
              rows: { recovery: boolean }[];
            }
          ).rows;
          await tx.db.execute(sql`insert into read_writes values (${recovery ? 1 : 2})`);
          return recovery;
        }),
      );
      expect(n, 'the transaction that wrote ran on the primary').toBe(false);
      await inRead(() => database.db.execute(sql`insert into read_writes values (3)`));
      const rows = await query<{ n: number }>(primaryDb, 'select n from read_writes order by n');
      expect(rows.map((r) => r.n)).toEqual([2, 3]);
      expect(database.standby?.counts.writesOnRead).toBe(2);
      // A plain read in the same scope is the standby's.
      const [row] = (
        (await inRead(() =>
          database.db.execute(sql`select pg_is_in_recovery() as recovery`),
        )) as unknown as { rows: { recovery: boolean }[] }
      ).rows;
      expect(row?.recovery).toBe(true);
    } finally {
      await database.close();
    }
  });

  it('answers from the primary while the standby is down, and says so in its log and /metrics', async () => {
    await standby.stopByPid();
    const paths = reads(second, first.runId);
    // At once (the probe has not seen it yet: the reads fail over) and after a probe.
    for (const round of [0, 1]) {
      for (const path of paths) {
        const got = await answer(api, path);
        expect(got, `${path} (round ${round})`).toEqual(await answer(direct, path));
      }
      await sleep(700);
    }
    expect(await metric(api, 'meshbench_standby_up')).toBe(0);
    const down =
      (await metric(api, 'meshbench_standby_reads_total', '{target="primary",reason="down"}')) ?? 0;
    const failovers = (await metric(api, 'meshbench_standby_failovers_total')) ?? 0;
    expect(down).toBeGreaterThanOrEqual(paths.length);
    expect(down + failovers).toBeGreaterThanOrEqual(2 * paths.length);
    expect(api.output()).toContain('the read standby is not used');
    expect(api.output()).toContain('reads go to the primary');
  });
});
