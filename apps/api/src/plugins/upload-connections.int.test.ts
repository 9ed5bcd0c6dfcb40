// On Postgres, writes hold at most MESHBENCH_UPLOAD_CONNECTIONS of the pool's connections:
// six event batches that stall half-sent (each holding its COPY's transaction) take two of
// a pool of four, the others wait their turn, and a read meanwhile is answered at once
// instead of waiting for a connection until the pool's wait runs out (503). Once the
// batches are sent whole, every one is stored.
import { openDatabase } from '@meshbench/db';
import { describe, expect, it } from 'vitest';
import { createRun, useServer } from '../test/harness.ts';
import { type RawUpload, rawUpload, statusOf } from '../test/raw-upload.ts';

const url = process.env.DATABASE_URL;
const POOL = 4;
const CAP = 2;
const UPLOADS = 6;
/** How long a query waits for a pool connection (and an upload for a permit). */
const WAIT_MS = 6000;

function batch(observations: number): string {
  const lines = [
    JSON.stringify({
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 't',
      action: 'delete',
      at: '2026-02-01T10:00:00Z',
    }),
  ];
  for (let i = 0; i < observations; i++)
    lines.push(
      JSON.stringify({
        type: 'observation',
        change: 'c1',
        proxy: `proxy-${i}-sidecar`,
        node: `node-${i % 50}`,
        at: new Date(Date.parse('2026-02-01T10:00:00Z') + 1 + (i % 5000)).toISOString(),
      }),
    );
  return `${lines.join('\n')}\n`;
}

describe.skipIf(!url)('upload connections capped below the pool on postgres', () => {
  const server = useServer(
    {
      name: 'postgres',
      open: () =>
        openDatabase({ url, poolSize: POOL, uploadConnections: CAP, connectTimeoutMs: WAIT_MS }),
    },
    {
      MESHBENCH_READ_CACHE_MS: '0',
      MESHBENCH_MAX_CONCURRENT_BATCHES: '20',
      MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT: '20',
      MESHBENCH_BODY_MIN_RATE: '0',
      MESHBENCH_BODY_TIMEOUT_MS: '60000',
    },
  );

  it('serves reads while more uploads than the cap hold their transactions open, and stores every upload', async () => {
    const body = Buffer.from(batch(4000));
    const half = body.subarray(0, 128 * 1024); // past the 64 KiB that takes a batch slot
    const runs = await Promise.all(Array.from({ length: UPLOADS }, () => createRun(server)));
    const uploads: RawUpload[] = [];
    try {
      for (const run of runs)
        uploads.push(
          await rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
            token: server.token,
            contentLength: body.length,
            start: half,
            headers: { connection: 'close' },
          }),
        );
      // The cap's worth of batches hold a connection each; the others wait for a permit
      // (without the cap: all of them hold or wait for a pool connection, reads behind them).
      const uploadsOf = () => server.app.database.uploads?.counts();
      for (let i = 0; i < 40 && uploadsOf()?.waiting !== UPLOADS - CAP; i++)
        await new Promise((r) => setTimeout(r, 50));

      const started = performance.now();
      const read = await fetch(`${server.url}/api/v1/runs?limit=5`, {
        signal: AbortSignal.timeout(WAIT_MS * 2),
      });
      const readMs = performance.now() - started;
      expect(read.status, await read.text()).toBe(200);
      // Well inside the pool's wait: the read did not wait for an upload's connection.
      expect(readMs).toBeLessThan(WAIT_MS / 2);
      expect(uploadsOf()).toMatchObject({ held: CAP, waiting: UPLOADS - CAP });

      for (const u of uploads) u.send(body.subarray(half.length));
      const answers = await Promise.all(uploads.map((u) => u.answered.then(() => u.response)));
      for (const a of answers) expect(statusOf(a), a.slice(0, 300)).toBe(200);
      for (const run of runs) {
        const stored = await server.json(`/runs/${run.id}/changes/c1/propagation`);
        expect((stored.body as { observations: number }).observations).toBe(4000);
      }
      expect(uploadsOf()).toMatchObject({ held: 0, waiting: 0 });
    } finally {
      for (const u of uploads) u.abort();
    }
  }, 120_000);
});
