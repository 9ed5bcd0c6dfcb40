// `meshbench events` when the API or the CLI itself dies mid-upload: nothing lost, nothing
// stored twice, however the re-run cuts the file. On both databases.
import { createClient, fetchTransport } from '@meshbench/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventsUpload } from './events-upload.ts';
import { ADMIN, type Api, api, backends, cli, eventsFile } from './test/processes.ts';

describe.each(backends)('meshbench events through crashes on $name', (backend) => {
  let server: Api;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await api(backend.env());
    env = { MESHBENCH_URL: server.url, MESHBENCH_TOKEN: ADMIN };
  });
  afterAll(() => server?.stop());

  const create = async () => {
    const r = await cli(
      ['run', 'create', '--benchmark', 'cli-faults', '--scenario', 'crash', '--mesh', 'consul'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  /** What is stored, read back: distinct proxies and observation rows of change c1. */
  const stored = (run: string) =>
    createClient(fetchTransport({ url: server.url })).runs.propagation(run, 'c1', {
      percentiles: '50',
    });

  it('survives kill -9 of the API mid-upload: the CLI retries, then a re-run cut otherwise sends nothing', async () => {
    const run = await create();
    const file = eventsFile(40_000, (i) => (i * 13) % 3000);
    let killed = false;
    const restarted = (async () => {
      while (!killed) await new Promise((r) => setTimeout(r, 10));
      await server.stop('SIGKILL');
      await new Promise((r) => setTimeout(r, 1000));
      await server.start();
    })();
    const result = await cli(
      ['events', run, file, '--batch-lines', '2000', '--json', '--retries', '30'],
      env,
      (line) => {
        if (line.startsWith('lines 6001-8000:')) killed = true;
      },
    );
    await restarted;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/retrying in/);
    expect(await stored(run)).toMatchObject({ count: 40_000, observations: 40_000 });
    const again = await cli(['events', run, file, '--batch-lines', '3000', '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ batches: 0, alreadyStoredLines: 40_001 });
    expect(await stored(run)).toMatchObject({ count: 40_000, observations: 40_000 });
  });

  it('after the API died under a CLI that gave up, a re-run with another --batch-lines stores the rest once', async () => {
    const run = await create();
    const file = eventsFile(30_000, (i) => i % 2000);
    let killed = false;
    const gaveUp = await cli(
      ['events', run, file, '--batch-lines', '2500', '--json', '--retries', '0'],
      env,
      (line) => {
        if (!killed && line.startsWith('lines 5001-7500:')) {
          killed = true;
          server.stop('SIGKILL');
        }
      },
    );
    expect(gaveUp.code).toBe(3);
    await server.start();
    const partly = await stored(run);
    expect(partly.observations).toBeGreaterThanOrEqual(7499); // lines 1-7500: the change and 7,499
    expect(partly.observations).toBeLessThan(30_000);
    const rerun = await cli(['events', run, file, '--batch-lines', '4000', '--json'], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await stored(run)).toMatchObject({ count: 30_000, observations: 30_000 });
    const done = JSON.parse(rerun.stdout) as EventsUpload;
    // Every line once: what the first run stored (its change line among them) plus the rest.
    expect(done.alreadyStoredLines + done.accepted).toBe(30_001);
  });

  it('after the CLI itself was killed mid-upload, a re-run cut otherwise stores every line once', async () => {
    const run = await create();
    const file = eventsFile(30_000, (i) => (i * 7) % 2500);
    const killed = await cli(
      ['events', run, file, '--batch-lines', '1500', '--json'],
      env,
      (line, child) => {
        if (line.startsWith('lines 4501-6000:')) child.kill('SIGKILL');
      },
    );
    expect(killed.code).not.toBe(0);
    const rerun = await cli(['events', run, file, '--batch-lines', '5000', '--json'], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await stored(run)).toMatchObject({ count: 30_000, observations: 30_000 });
    expect(JSON.parse(rerun.stdout).alreadyStoredLines).toBeGreaterThanOrEqual(6000);
  });
});
