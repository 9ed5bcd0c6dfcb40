// Two API replicas on one Postgres (through pgbouncer in transaction pooling mode) behind
// Debian's haproxy: background work runs once across them, and a replica killed mid-upload
// loses nothing and stores nothing twice (the CLI retries its batch, under the same
// Idempotency-Key, through the other). The real parts, each on its own port and config.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { propagation, run as runAnswer } from '@meshbench/schema';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiProcess, PROCESS_ADMIN_TOKEN, startApiProcess } from './test/api-process.ts';
import { type EmptyDatabase, emptyDatabase } from './test/empty-database.ts';
import { type Haproxy, startHaproxy } from './test/haproxy.ts';
import { openLive } from './test/live-reader.ts';
import { type Pgbouncer, startPgbouncer } from './test/pgbouncer.ts';

const url = process.env.DATABASE_URL;
const CLI = fileURLToPath(new URL('../../../packages/cli/dist/cli.js', import.meta.url));
const T0 = Date.parse('2026-02-01T10:00:00Z');

function eventsFile(proxies: number): string {
  const lines = [
    JSON.stringify({
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: new Date(T0).toISOString(),
      expected: proxies,
    }),
  ];
  for (let i = 0; i < proxies; i++)
    lines.push(
      JSON.stringify({
        type: 'observation',
        change: 'c1',
        proxy: `p${i}`,
        node: `n${i % 50}`,
        at: new Date(T0 + ((i * 13) % 3000)).toISOString(),
      }),
    );
  const file = join(mkdtempSync(join(tmpdir(), 'meshbench-events-')), 'events.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The built CLI; `onLine` sees each line it prints to stderr (its progress). */
function cli(args: string[], env: Record<string, string>, onLine: (line: string) => void) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      partial += c.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!url)('two replicas behind haproxy, through pgbouncer, on one Postgres', () => {
  let database: EmptyDatabase;
  let bouncer: Pgbouncer;
  let lb: Haproxy;
  const replicas: ApiProcess[] = [];
  /** Each replica's output since it started: its log lines. */
  const said: string[] = [];

  beforeAll(async () => {
    database = await emptyDatabase(url as string, `mb_replicas_${process.pid}`);
    bouncer = await startPgbouncer(database.url);
    const started = await Promise.all(
      [0, 1].map(() =>
        startApiProcess({ DATABASE_URL: bouncer.url, MESHBENCH_ALERTS_RECHECK_MS: '100' }),
      ),
    );
    for (const [i, api] of started.entries()) {
      replicas.push(api);
      said[i] = '';
      api.child.stdout?.on('data', (c: Buffer) => {
        said[i] += c.toString('utf8');
      });
    }
    lb = await startHaproxy(replicas.map((r) => r.url));
  }, 180_000);

  afterAll(async () => {
    await lb?.stop();
    for (const api of replicas) {
      if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGTERM');
      await api.exited;
    }
    await bouncer?.stop();
    await database?.drop();
  });

  it('shows a write on one replica to a live viewer on the other, and ends there with the stored result', async () => {
    const [writer, watcher] = replicas as [ApiProcess, ApiProcess];
    const headers = {
      authorization: `Bearer ${PROCESS_ADMIN_TOKEN}`,
      'content-type': 'application/x-ndjson',
    };
    const run = await writer.json(
      '/runs',
      {
        method: 'POST',
        body: JSON.stringify({ benchmark: 'replicas', scenario: 'live', mesh: { name: 'consul' } }),
      },
      runAnswer,
    );
    const viewer = await openLive(watcher.url, run.id);
    expect(viewer.status).toBe(200);
    await viewer.next((e) => e.type === 'state');
    const lines = (from: number, n: number) =>
      Array.from({ length: n }, (_, k) =>
        JSON.stringify({
          type: 'observation',
          change: 'c1',
          proxy: `p${from + k}`,
          at: new Date(T0 + 10 + from + k).toISOString(),
        }),
      );
    const change = JSON.stringify({
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: new Date(T0).toISOString(),
      expected: 300,
    });
    const posted = Date.now();
    const answer = await fetch(`${writer.url}/api/v1/runs/${run.id}/events`, {
      method: 'POST',
      headers,
      body: [change, ...lines(0, 200)].join('\n'),
    });
    expect(answer.status).toBe(200);
    const seen = await viewer.next((e) => e.state.propagation[0]?.summary?.count === 200);
    // Polled every 250 ms, at most one state a second: well within 2 s of the write.
    expect(seen.receivedAt - posted).toBeLessThan(2000);
    await fetch(`${writer.url}/api/v1/runs/${run.id}/events`, {
      method: 'POST',
      headers,
      body: lines(200, 100).join('\n'),
    });
    await writer.json(`/runs/${run.id}`, { method: 'PATCH', body: '{}' });
    const end = await viewer.next((e) => e.type === 'end');
    await viewer.ended;
    expect(end.state.propagation[0]?.summary?.count).toBe(300);
    // The run page's summary read, as the live state carries it: its histogram ranged auto.
    const stored = await writer.json(
      `/runs/${run.id}/changes/c1/propagation?range=auto`,
      {},
      propagation,
    );
    expect(end.state.propagation[0]?.summary).toEqual(stored);
  });

  it('looks again at each run’s change points once, on one replica or the other', async () => {
    const runs: string[] = [];
    for (let i = 0; i < 30; i++) {
      const run = await replicas[i % 2]!.json(
        '/runs',
        {
          method: 'POST',
          body: JSON.stringify({
            benchmark: 'replicas',
            scenario: 'recheck',
            mesh: { name: 'consul' },
          }),
        },
        runAnswer,
      );
      runs.push(run.id);
    }
    const batch = (from: number, n: number) =>
      Array.from({ length: n }, (_, k) =>
        JSON.stringify({
          type: 'observation',
          change: 'c1',
          proxy: `p${from + k}`,
          at: new Date(T0 + 100 + (((from + k) * 7) % 900)).toISOString(),
        }),
      ).join('\n');
    for (const [i, id] of runs.entries()) {
      const api = replicas[i % 2]!;
      const change = JSON.stringify({
        type: 'change',
        id: 'c1',
        kind: 'endpoint',
        target: 'hey',
        action: 'add',
        at: new Date(T0).toISOString(),
      });
      await api.json(`/runs/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: `${change}\n${batch(0, 500)}`,
      });
      await api.json(`/runs/${id}`, { method: 'PATCH', body: JSON.stringify({}) });
      // A late batch after the finish: the run's change points are to be looked at again.
      await api.json(`/runs/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: batch(500, 100),
      });
    }
    // Settled: as if the late batches had come long ago (the recheck leaves newer ones).
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    try {
      await c.query(`update run_facts set computed_at = now() - interval '1 hour'`);
      let behind = runs.length;
      for (let i = 0; i < 600 && behind > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const left = await c.query<{ n: number }>(
          'select count(*)::int as n from run_facts where alerts_version is distinct from data_version',
        );
        behind = left.rows[0]?.n ?? 0;
      }
      expect(behind, 'runs still behind').toBe(0);
    } finally {
      await c.end();
    }
    const looked = (i: number, id: string) =>
      said[i]?.split('\n').filter((l) => l.includes(`change points of run ${id}"`)).length ?? 0;
    const counts = runs.map((id) => looked(0, id) + looked(1, id));
    expect(counts).toEqual(runs.map(() => 1));
  }, 180_000);

  it('loses nothing and stores nothing twice when a replica is killed mid-upload', async () => {
    const env = { MESHBENCH_URL: lb.url, MESHBENCH_TOKEN: PROCESS_ADMIN_TOKEN };
    const created = await cli(
      ['run', 'create', '--benchmark', 'replicas', '--scenario', 'kill', '--mesh', 'consul'],
      env,
      () => {},
    );
    expect(created.code, created.stderr).toBe(0);
    const run = created.stdout.trim();
    const file = eventsFile(40_000);
    let killed = false;
    const result = await cli(
      ['events', run, file, '--batch-lines', '2000', '--json', '--retries', '30'],
      env,
      (line) => {
        if (!killed && line.startsWith('lines 6001-8000:')) {
          killed = true;
          replicas[0]?.child.kill('SIGKILL');
        }
      },
    );
    expect(killed).toBe(true);
    expect(await replicas[0]?.exited).toBe('SIGKILL');
    expect(result.code, result.stderr).toBe(0);
    // Read through the balancer: the replica left answers.
    const read = await fetch(`${lb.url}/api/v1/runs/${run}/changes/c1/propagation?percentiles=50`);
    const stored = propagation.parse(await read.json());
    expect({ count: stored.count, observations: stored.observations }).toEqual({
      count: 40_000,
      observations: 40_000,
    });
  }, 180_000);
});
