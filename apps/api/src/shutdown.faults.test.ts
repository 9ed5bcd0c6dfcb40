// SIGTERM while clients are still at it: the process exits within its bound, batches still
// arriving roll back, and nothing of them is stored. The built server, on both databases.
import { run as runAnswer } from '@meshbench/schema';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ApiProcess,
  processBackends,
  startApiProcess,
  stopApiProcesses,
} from './test/api-process.ts';
import { headerOf, rawUpload, statusOf } from './test/raw-upload.ts';

const T0 = Date.parse('2026-02-01T10:00:00Z');
const line = (i: number) =>
  JSON.stringify({
    type: 'observation',
    change: 'c1',
    proxy: `proxy-${i}-sidecar`,
    node: `node-${i % 100}`,
    at: new Date(T0 + (i % 5000)).toISOString(),
  });
const batch = (from: number, to: number) => {
  const lines = [];
  if (from === 0)
    lines.push(
      JSON.stringify({
        type: 'change',
        id: 'c1',
        kind: 'endpoint',
        target: 'hey',
        action: 'delete',
        at: new Date(T0).toISOString(),
      }),
    );
  for (let i = from; i < to; i++) lines.push(line(i));
  return `${lines.join('\n')}\n`;
};

const newRun = (api: ApiProcess) =>
  api.json(
    '/runs',
    {
      method: 'POST',
      body: JSON.stringify({ benchmark: 'faults', scenario: 'shutdown', mesh: { name: 'consul' } }),
    },
    runAnswer,
  );

describe.each(processBackends)('shutdown on $name', (backend) => {
  // A test that fails or times out before it stops its processes leaves none running.
  afterEach(stopApiProcesses);

  it('exits within its bound on SIGTERM during an upload; the upload gets 503 and stores nothing', async () => {
    const env = { ...backend.env(), MESHBENCH_SHUTDOWN_TIMEOUT_MS: '3000' };
    let api = await startApiProcess(env);
    const run = await newRun(api);
    // A client half way through its body, sending nothing more for now.
    const upload = await rawUpload(api.url, `/api/v1/runs/${run.id}/events`, {
      token: 'faults-admin-token-0123456789',
      contentLength: 20_000_000,
      start: batch(0, 20_000),
    });
    await new Promise((r) => setTimeout(r, 500));
    const signalled = Date.now();
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
    const took = Date.now() - signalled;
    expect(took).toBeLessThan(3000);
    const response = await upload.response;
    expect(statusOf(response)).toBe(503);
    expect(headerOf(response, 'retry-after')).toBe('2');

    api = await startApiProcess(env);
    try {
      expect(await api.json(`/runs/${run.id}/changes`)).toEqual([]);
      // The same batch, sent whole after the restart, goes in whole.
      expect(
        await api.json(`/runs/${run.id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: batch(0, 20_000),
        }),
      ).toEqual({ accepted: 20_001, duplicate: false });
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });

  it('exits at its deadline when a request in progress cannot finish', async () => {
    const env = { ...backend.env(), MESHBENCH_SHUTDOWN_TIMEOUT_MS: '2000' };
    const api = await startApiProcess(env);
    const run = await newRun(api);
    for (let from = 0; from < 150_000; from += 50_000) {
      await api.json(`/runs/${run.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: batch(from, from + 50_000),
      });
    }
    // A download of the run's events (15 MB) by a client that reads none of it.
    const download = await rawUpload(api.url, `/api/v1/runs/${run.id}/events`, {
      token: 'faults-admin-token-0123456789',
      contentLength: 0,
      start: '',
      method: 'GET',
    });
    download.socket.pause();
    await new Promise((r) => setTimeout(r, 1000));
    const signalled = Date.now();
    api.child.kill('SIGTERM');
    const code = await api.exited;
    const took = Date.now() - signalled;
    expect(code).toBe(1);
    expect(took).toBeGreaterThanOrEqual(1900);
    // The deadline, then closing the database (the embedded one takes longest on a loaded
    // machine: 4.5 s seen under a parallel test run); a server that waited for the client
    // would never exit.
    expect(took).toBeLessThan(8000);
    download.abort();
  });
});
