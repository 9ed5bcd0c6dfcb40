// SIGTERM after live viewers went away: the process still closes at once, not at
// MESHBENCH_SHUTDOWN_TIMEOUT_MS. Viewers still connected and viewers gone are both there at
// the signal. The built server, on both databases.
import { connect } from 'node:net';
import { run as runAnswer } from '@meshbench/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { processBackends, startApiProcess, stopApiProcesses } from './test/api-process.ts';

const TIMEOUT_MS = 10_000;

/**
 * A viewer on a socket of its own that has read the stream's first state; `drop` closes its
 * socket as a browser closing the page does; `rest` settles when the server closes it.
 */
async function view(url: string, runId: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(
    `GET /api/v1/runs/${runId}/live HTTP/1.1\r\nhost: ${hostname}:${port}\r\naccept: text/event-stream\r\n\r\n`,
  );
  let text = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('event: state')) resolve();
    });
    socket.once('error', reject);
    closed.then(() => reject(new Error(`closed before the first state: ${text}`)));
  });
  expect(text.startsWith('HTTP/1.1 200')).toBe(true);
  return { drop: () => socket.destroy(), rest: closed };
}

/** A viewer by fetch (undici, as the CLI's watch): `drop` aborts it. */
async function fetchView(url: string, runId: string) {
  const aborter = new AbortController();
  const response = await fetch(`${url}/api/v1/runs/${runId}/live`, { signal: aborter.signal });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!text.includes('event: state')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before its first state: ${text}`);
    text += Buffer.from(value).toString('utf8');
  }
  return {
    drop: () => aborter.abort(),
    rest: (async () => {
      try {
        while (!(await reader.read()).done) {}
      } catch {}
    })(),
  };
}

describe.each(processBackends)('live viewers at shutdown on $name', (backend) => {
  // A test that fails or times out before it stops its processes leaves none running.
  afterEach(stopApiProcesses);

  it('closes at once on SIGTERM when viewers went away before it', async () => {
    const api = await startApiProcess({
      ...backend.env(),
      MESHBENCH_SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
      MESHBENCH_LIVE_POLL_MS: '100',
    });
    const run = await api.json(
      '/runs',
      {
        method: 'POST',
        body: JSON.stringify({ benchmark: 'faults', scenario: 'live', mesh: { name: 'consul' } }),
      },
      runAnswer,
    );
    const other = await api.json(
      '/runs',
      {
        method: 'POST',
        body: JSON.stringify({ benchmark: 'faults', scenario: 'live', mesh: { name: 'istio' } }),
      },
      runAnswer,
    );
    // Five viewers of one run that go away (the last one leaving stops its watch): three by
    // fetch aborted (undici then left, here, a spare connection that sends no request) and two
    // whose sockets close; three of another run of which one goes away and two stay.
    const gone = await Promise.all([
      ...[1, 2, 3].map(() => fetchView(api.url, run.id)),
      ...[1, 2].map(() => view(api.url, run.id)),
    ]);
    const [leaving, staying, staying2] = await Promise.all([
      fetchView(api.url, other.id),
      fetchView(api.url, other.id),
      view(api.url, other.id),
    ]);
    for (const v of [...gone, leaving]) v.drop();
    await new Promise((r) => setTimeout(r, 1000));
    const signalled = Date.now();
    api.child.kill('SIGTERM');
    const code = await api.exited;
    const took = Date.now() - signalled;
    await staying.rest;
    await staying2.rest;
    expect(code).toBe(0);
    // Closing the embedded database takes seconds on a loaded machine; waiting for the
    // gone viewers would take the whole timeout (10 s) and exit 1.
    expect(took).toBeLessThan(TIMEOUT_MS / 2);
  });
});
