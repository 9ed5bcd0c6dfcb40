// Backup and restore as docs/deploy.md gives them: a database holding every kind of data
// (the demo dataset, posted through the public paths: events, result files, StatsD, OTLP,
// remote write; a shared report; a project with a token) dumped with Debian's `pg_dump -Fc`,
// restored with `pg_restore` into a fresh database, and the API started on the copy answers
// the same reads byte for byte: list, run pages, propagation (JSON and CSV), tails, series
// and their points, timelines, load results, clocks, history, the report and the exports.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiProcess, freePort, startApiProcess } from './test/api-process.ts';

const BIN = '/usr/lib/postgresql/15/bin';
const url = process.env.DATABASE_URL;
const runnable = Boolean(url) && existsSync(join(BIN, 'pg_dump'));
const AUTH = { authorization: 'Bearer faults-admin-token-0123456789' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const at = (db: string) => {
  const u = new URL(url as string);
  u.pathname = `/${db}`;
  return u.toString();
};

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function stop(api: ApiProcess | undefined) {
  if (api && api.child.exitCode === null) {
    api.child.kill('SIGTERM');
    await api.exited;
  }
}

async function get(api: ApiProcess, path: string, accept?: string) {
  const response = await fetch(`${api.url}/api/v1${path}`, {
    headers: { ...AUTH, ...(accept ? { accept } : {}), 'accept-encoding': 'identity' },
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

type Read = Awaited<ReturnType<typeof get>>;

const json = <T>(read: Read): T => JSON.parse(read.body.toString('utf8')) as T;

/**
 * Every read worth comparing, found by walking the API from the runs list: each run's page,
 * changes, propagation (JSON and CSV), tail, Perfetto trace, series and their points,
 * timeline, results, stages, clocks and event export; the history of each benchmark; the
 * report. Returns path -> answer.
 */
async function readAll(api: ApiProcess, reportSlug: string): Promise<Map<string, Read>> {
  const answers = new Map<string, Read>();
  const read = async (path: string, accept?: string) => {
    const key = accept ? `${path} [${accept}]` : path;
    const answer = await get(api, path, accept);
    answers.set(key, answer);
    return answer;
  };
  const list = json<{ runs: { id: string; benchmark: string }[]; total: number }>(
    await read('/runs?limit=500&sort=startedAt'),
  );
  await read('/runs/facets');
  await read(`/runs/headlines?ids=${list.runs.map((r) => r.id).join(',')}`);
  await read(`/reports/${reportSlug}`);
  for (const benchmark of new Set(list.runs.map((r) => r.benchmark)))
    await read(`/history?benchmark=${encodeURIComponent(benchmark)}`);
  for (const { id } of list.runs) {
    await read(`/runs/${id}`);
    await read(`/runs/${id}/propagation`);
    await read(`/runs/${id}/timeline`);
    await read(`/runs/${id}/results`);
    await read(`/runs/${id}/results/stages`);
    await read(`/runs/${id}/clocks`);
    await read(`/runs/${id}/events`);
    const changes = await read(`/runs/${id}/changes`);
    if (changes.status === 200)
      for (const change of json<{ id: string }[]>(changes)) {
        const c = encodeURIComponent(change.id);
        await read(`/runs/${id}/changes/${c}/propagation`);
        await read(`/runs/${id}/changes/${c}/propagation`, 'text/csv');
        await read(`/runs/${id}/changes/${c}/tail`);
        await read(`/runs/${id}/changes/${c}/tail`, 'text/csv');
        await read(`/runs/${id}/changes/${c}/perfetto`);
      }
    const series = await read(`/runs/${id}/series`);
    if (series.status === 200)
      for (const s of json<{ id: string }[]>(series))
        await read(`/runs/${id}/series/${encodeURIComponent(s.id)}/points`);
  }
  return answers;
}

const title = runnable
  ? 'backup (pg_dump -Fc) and restore (pg_restore) of a database with every kind of data'
  : `backup and restore: skipped, ${url ? `no ${BIN}/pg_dump` : 'DATABASE_URL is unset (a Postgres-only suite)'}`;

describe.skipIf(!runnable)(title, () => {
  const stamp = `${process.pid}_${Date.now()}`;
  const source = `meshbench_backup_${stamp}`;
  const restored = `meshbench_restored_${stamp}`;
  const dir = mkdtempSync(join(tmpdir(), 'meshbench-backup-'));
  const dump = join(dir, 'meshbench.dump');
  let original: ApiProcess | undefined;
  let copy: ApiProcess | undefined;
  let before: Map<string, Read>;
  let reportSlug: string;
  let projectToken: string;

  beforeAll(async () => {
    await admin(`create database ${source}`);
    original = await startApiProcess({
      DATABASE_URL: at(source),
      MESHBENCH_DEMO: '1',
      STATSD_PORT: String(await freePort()),
      MESHBENCH_READ_CACHE_MS: '0',
      MESHBENCH_ALERTS_RECHECK_MS: '0',
    });
    for (let i = 0; !original.output().includes('demo data loaded'); i++) {
      expect(original.output(), 'the demo failed to load').not.toContain('demo data failed');
      if (i > 3000) throw new Error('the demo did not load in 300 s');
      await sleep(100);
    }
    const api = original;
    const runs = json<{ runs: { id: string }[] }>(await get(api, '/runs?limit=3'));
    const report = (await api.json('/reports', {
      method: 'POST',
      body: JSON.stringify({ runs: runs.runs.map((r) => r.id), title: 'kept through a restore' }),
    })) as { slug: string };
    reportSlug = report.slug;
    const project = (await api.json('/projects', {
      method: 'POST',
      body: JSON.stringify({ name: `backup-${stamp}` }),
    })) as { id: string };
    projectToken = (
      (await api.json(`/projects/${project.id}/tokens`, {
        method: 'POST',
        body: JSON.stringify({ name: 'ci' }),
      })) as { token: string }
    ).token;
    // Read once, so that whatever a read keeps (facts, corrected summaries) is kept before the
    // dump; the second pass is what the copy must answer.
    await readAll(api, reportSlug);
    before = await readAll(api, reportSlug);
    await stop(original);
    // The commands of docs/deploy.md.
    execFileSync(join(BIN, 'pg_dump'), ['-Fc', '-d', at(source), '-f', dump]);
    await admin(`create database ${restored}`);
    execFileSync(join(BIN, 'pg_restore'), [
      ...['--no-owner', '--exit-on-error', '-d', at(restored), dump],
    ]);
    copy = await startApiProcess({
      DATABASE_URL: at(restored),
      MESHBENCH_DEMO: '1',
      MESHBENCH_READ_CACHE_MS: '0',
      MESHBENCH_ALERTS_RECHECK_MS: '0',
    });
  }, 600_000);

  afterAll(async () => {
    await stop(original);
    await stop(copy);
    for (const db of [source, restored])
      await admin(`drop database if exists ${db} with (force)`).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every read of the copy byte for byte as the original did', async () => {
    const api = copy as ApiProcess;
    const after = await readAll(api, reportSlug);
    expect([...after.keys()]).toEqual([...before.keys()]);
    // Enough of every kind to mean something: runs with changes, series and load results.
    const keys = [...before.keys()];
    expect(keys.filter((k) => /\/changes\/[^/]+\/propagation$/.test(k)).length).toBeGreaterThan(5);
    expect(keys.filter((k) => /\/series\/[^/]+\/points$/.test(k)).length).toBeGreaterThan(5);
    const results = keys.filter((k) => /\/results$/.test(k));
    expect(results.some((k) => (json<unknown[]>(before.get(k) as Read) ?? []).length > 0)).toBe(
      true,
    );
    const differ: string[] = [];
    for (const [path, answer] of before) {
      const again = after.get(path) as Read;
      // The event exports too: their order is total (EXPORT_QUERY), so a restored table
      // read by another plan gives the same bytes.
      if (
        again.status !== answer.status ||
        again.type !== answer.type ||
        !again.body.equals(answer.body)
      )
        differ.push(path);
    }
    expect(differ, 'answers that differ after the restore').toEqual([]);
    expect([...before.values()].filter((a) => a.status === 200).length).toBeGreaterThan(100);
  }, 600_000);

  it('loads no demo again on the copy, and keeps its projects’ tokens', async () => {
    const api = copy as ApiProcess;
    expect(api.output()).not.toContain('demo data loaded');
    const posted = await fetch(`${api.url}/api/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${projectToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ benchmark: 'after-restore', scenario: 's', mesh: { name: 'consul' } }),
    });
    expect(posted.status).toBe(201);
  });
});
