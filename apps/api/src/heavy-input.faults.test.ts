// Heavy input against the built API as a process of its own: floods of half-sent bodies,
// clients that trickle, a gzip bomb. What is asserted is what only a process shows: its
// memory (resident set, from /proc) stays within a stated bound over its memory at rest,
// it is still alive, and a read sent meanwhile is answered within a stated (generous) bound.
// The peak resident set is printed for the record (VmHWM).
import { readFileSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';
import { run as runAnswer } from '@meshbench/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHdrLog } from './ingest/results/hdr-log.test-fixtures.ts';
import {
  type ApiProcess,
  PROCESS_ADMIN_TOKEN,
  processBackends,
  startApiProcess,
} from './test/api-process.ts';
import { type RawUpload, rawUpload, statusOf } from './test/raw-upload.ts';

/** Bytes of bodies the API may hold at once here (MESHBENCH_MAX_HELD_BYTES). */
const HELD = 64 * 1024 * 1024;
/** How far the resident set may grow over its size at rest: the held bytes and room. */
const RSS_GROWTH_BOUND_MIB = 320;
/** How long a concurrent read may take to answer under the load (generous: a shared machine). */
const READ_BOUND_MS = 5000;
/**
 * The longest a read may wait while one 16 MB JSON-array batch or one 20,000-interval HdrHistogram
 * log is stored: decoding and merging in 20 ms slices, and the rows staged 256 KiB a statement
 * (issue 26's target is ~100 ms; this bound leaves room for a machine shared with other work).
 */
const STALL_BOUND_MS = 1500;

const MiB = 1024 * 1024;

function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** A read of the runs list, its time in ms; it fails the test past READ_BOUND_MS. */
async function timedRead(api: ApiProcess): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${api.url}/api/v1/runs?limit=5`, {
    signal: AbortSignal.timeout(READ_BOUND_MS),
  });
  await response.text();
  expect(response.status).toBe(200);
  return performance.now() - started;
}

/**
 * 1 GiB of zeros gzipped at level 9, made once for both databases. Run-length matching finds
 * the only matches a run of zeros has (distance 1, the longest length): as small as the
 * default strategy's (1,043,656 bytes each), in a third of the time (39 s at load 17).
 */
let gzipBomb: Buffer | undefined;
const bomb = () => {
  gzipBomb ??= gzipSync(Buffer.alloc(1024 * MiB), { level: 9, strategy: constants.Z_RLE });
  return gzipBomb;
};

const within = (upload: RawUpload, ms: number) =>
  Promise.race([upload.response, new Promise<string>((r) => setTimeout(() => r(''), ms))]);

describe.each(processBackends)('heavy input against the API process on $name', (backend) => {
  let api: ApiProcess;
  let runId: string;
  let atRest: number;
  const reads: number[] = [];

  beforeAll(async () => {
    api = await startApiProcess({
      ...backend.env(),
      MESHBENCH_MAX_HELD_BYTES: String(HELD),
      MESHBENCH_BODY_MIN_RATE: '1000',
      MESHBENCH_BODY_RATE_WINDOW_MS: '1000',
    });
    const run = await api.json(
      '/runs',
      {
        method: 'POST',
        body: JSON.stringify({
          benchmark: 'heavy',
          scenario: `h-${Date.now()}`,
          mesh: { name: 'consul' },
        }),
      },
      runAnswer,
    );
    runId = run.id;
    await timedRead(api);
    atRest = memoryMiB(api.child.pid as number).rss;
  }, 300_000);

  afterAll(async () => {
    if (!api) return;
    const { peak } = memoryMiB(api.child.pid as number);
    console.log(
      `heavy-input (${backend.name}): RSS at rest ${atRest.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (bound: rest + ${RSS_GROWTH_BOUND_MIB} MiB); slowest concurrent read ${Math.max(...reads).toFixed(0)} ms (bound ${READ_BOUND_MS} ms)`,
    );
    api.child.kill('SIGTERM');
    await api.exited;
  });

  /** The API is alive and within its memory bound; a read answers within its bound. */
  async function holdsUp() {
    expect(api.child.exitCode).toBeNull();
    reads.push(await timedRead(api));
    const { rss } = memoryMiB(api.child.pid as number);
    expect(rss - atRest).toBeLessThan(RSS_GROWTH_BOUND_MIB);
  }

  /** The API's own count of body bytes held is within MESHBENCH_MAX_HELD_BYTES, and it refused some. */
  async function heldWithinBound() {
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    const held = Number(/^meshbench_held_body_bytes (\d+)$/m.exec(metrics)?.[1]);
    expect(held).toBeLessThanOrEqual(HELD);
    expect(held).toBeGreaterThan(HELD / 2); // it did hold bodies up to near its bound
    expect(
      Number(/^meshbench_held_bytes_refused_total (\d+)$/m.exec(metrics)?.[1]),
    ).toBeGreaterThan(0);
  }

  it('answers reads within STALL_BOUND_MS while a 16 MB JSON-array batch is stored', async () => {
    const lines: string[] = [
      JSON.stringify({
        type: 'change',
        id: 'big',
        kind: 'endpoint',
        target: 't',
        action: 'delete',
        at: '2026-02-01T10:00:00Z',
      }),
    ];
    for (let bytes = 0; bytes < 16 * MiB; ) {
      const i = lines.length;
      const line = JSON.stringify({
        type: 'observation',
        change: 'big',
        proxy: `proxy-${i}-sidecar`,
        node: `node-${i % 1000}`,
        at: new Date(Date.parse('2026-02-01T10:00:00Z') + (i % 60_000)).toISOString(),
      });
      lines.push(line);
      bytes += line.length + 1;
    }
    let stored = false;
    const post = fetch(`${api.url}/api/v1/runs/${runId}/events`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${PROCESS_ADMIN_TOKEN}`,
        'content-type': 'application/json',
      },
      body: `[${lines.join(',')}]`,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));
    post.finally(() => {
      stored = true;
    });
    const during: number[] = [];
    while (!stored) {
      during.push(await timedRead(api));
      await new Promise((r) => setTimeout(r, 25));
    }
    const answer = await post;
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(JSON.parse(answer.text).accepted).toBe(lines.length);
    reads.push(...during);
    expect(during.length).toBeGreaterThan(5);
    console.log(
      `heavy-input (${backend.name}): ${during.length} reads during a 16 MB JSON array (${lines.length} events), slowest ${Math.max(...during).toFixed(0)} ms (bound ${STALL_BOUND_MS} ms)`,
    );
    expect(Math.max(...during)).toBeLessThan(STALL_BOUND_MS);
    await holdsUp();
  });

  it('answers reads within STALL_BOUND_MS while a 20,000-interval HdrHistogram log is stored', async () => {
    const log = writeHdrLog({
      seed: 26,
      startMs: Date.parse('2026-02-01T10:00:00Z'),
      intervals: 20_000,
      perInterval: 100,
    });
    let stored = false;
    const post = fetch(`${api.url}/api/v1/runs/${runId}/results?format=hdr-log`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}`, 'content-type': 'text/plain' },
      body: log.text,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));
    post.finally(() => {
      stored = true;
    });
    const during: number[] = [];
    while (!stored) {
      during.push(await timedRead(api));
      await new Promise((r) => setTimeout(r, 25));
    }
    const answer = await post;
    expect(answer.status, answer.text.slice(0, 300)).toBe(201);
    reads.push(...during);
    expect(during.length).toBeGreaterThan(5);
    console.log(
      `heavy-input (${backend.name}): ${during.length} reads during a 20,000-interval log (${(log.text.length / MiB).toFixed(1)} MB), slowest ${Math.max(...during).toFixed(0)} ms (bound ${STALL_BOUND_MS} ms)`,
    );
    expect(Math.max(...during)).toBeLessThan(STALL_BOUND_MS);
    // All of it is visible: one slot an interval, each of its 100 requests.
    const stages = await fetch(`${api.url}/api/v1/runs/${runId}/results/stages`);
    const view = (await stages.json()) as { series: { requests: number }[] };
    expect(view.series.length).toBe(20_000);
    expect(view.series.every((s) => s.requests === 100)).toBe(true);
    await holdsUp();
  }, 300_000);

  it('bounds 300 half-sent 8 MB result files (1 MiB each sent) by the bytes held: 503 past them', async () => {
    const half = Buffer.alloc(MiB, 'a');
    half.write('{"Labels":"');
    const uploads: RawUpload[] = [];
    try {
      for (let i = 0; i < 300; i++) {
        uploads.push(
          await rawUpload(api.url, `/api/v1/runs/${runId}/results?format=fortio`, {
            token: PROCESS_ADMIN_TOKEN,
            contentType: 'application/json',
            contentLength: 8 * MiB,
            start: half,
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 1000));
      await holdsUp();
      await heldWithinBound();
      const answers = await Promise.all(uploads.map((u) => within(u, 100)));
      // Refusals answered by now (the API counted them above) name the bound.
      for (const a of answers.filter((a) => statusOf(a) === 503))
        expect(a).toContain('MESHBENCH_MAX_HELD_BYTES');
    } finally {
      for (const u of uploads) u.abort();
    }
    await holdsUp();
  });

  it('cuts 50 event uploads that send a byte every 200 ms at the minimum rate, serving reads and a whole batch meanwhile', async () => {
    const uploads: RawUpload[] = [];
    const timers: NodeJS.Timeout[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        const u = await rawUpload(api.url, `/api/v1/runs/${runId}/events`, {
          token: PROCESS_ADMIN_TOKEN,
          contentLength: 100_000,
          start: '',
        });
        uploads.push(u);
        timers.push(setInterval(() => u.socket.destroyed || u.send('{'), 200));
      }
      await holdsUp();
      const batch = await fetch(`${api.url}/api/v1/runs/${runId}/events`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${PROCESS_ADMIN_TOKEN}`,
          'content-type': 'application/x-ndjson',
        },
        body: `${JSON.stringify({ type: 'change', id: 'c1', kind: 'endpoint', target: 't', action: 'delete', at: '2026-02-01T10:00:00Z' })}\n`,
        signal: AbortSignal.timeout(READ_BOUND_MS),
      });
      expect(batch.status).toBe(200);
      const answers = await Promise.all(uploads.map((u) => within(u, 10_000)));
      for (const a of answers) expect(statusOf(a)).toBe(408);
    } finally {
      for (const t of timers) clearInterval(t);
      for (const u of uploads) u.abort();
    }
    await holdsUp();
  });

  it('stops a gzip bomb (1 GiB of zeros in 1 MB) at the limit of a result file: 413, memory bounded', async () => {
    const body = bomb();
    expect(body.length).toBeLessThan(2 * MiB);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${api.url}/api/v1/runs/${runId}/results?format=fortio`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${PROCESS_ADMIN_TOKEN}`,
            'content-type': 'application/json',
            'content-encoding': 'gzip',
          },
          body,
        }).then(async (r) => ({ status: r.status, text: await r.text() })),
      ),
    );
    for (const a of answers) expect([413, 503], a.text).toContain(a.status);
    expect(answers.some((a) => a.status === 413)).toBe(true);
    await holdsUp();
  });

  it('bounds a flood of 100 half-sent 4 MB JSON bodies on the JSON routes', async () => {
    const uploads: RawUpload[] = [];
    try {
      for (let i = 0; i < 100; i++) {
        uploads.push(
          await rawUpload(api.url, '/api/v1/runs', {
            token: PROCESS_ADMIN_TOKEN,
            contentType: 'application/json',
            contentLength: 4 * MiB,
            start: `{"benchmark":"${'b'.repeat(2 * MiB)}`,
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 500));
      await holdsUp();
      await heldWithinBound();
    } finally {
      for (const u of uploads) u.abort();
    }
    await holdsUp();
  });
});
