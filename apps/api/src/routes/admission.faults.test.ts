// Admission that one client cannot monopolise, tried with real sockets: clients that trickle
// their bodies a byte at a time (never idle long enough for the idle timeout), one project's
// uploads against another's, and many half-sent bodies held open at once. On both databases.
import type { Database } from '@meshbench/db';
import { project as projectAnswer } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  backends,
  createRun,
  jsonBody,
  ndjson,
  postEvents,
  type TestServer,
  useServer,
} from '../test/harness.ts';
import { headerOf, type RawUpload, rawUpload, statusOf } from '../test/raw-upload.ts';

const T0 = Date.parse('2026-02-01T10:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

/** A batch of change c1 observed by `n` proxies, as NDJSON text ending in a newline. */
const batch = (n: number) =>
  `${ndjson([
    { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', at: iso(0) },
    ...Array.from({ length: n }, (_, i) => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      at: iso(i),
    })),
  ])}\n`;

/** The response, or '' when none came within `ms` (the test fails on it, never hangs). */
const within = (upload: RawUpload, ms: number) =>
  Promise.race([upload.response, new Promise<string>((r) => setTimeout(() => r(''), ms))]);

/** A chunked HTTP/1.1 body (Transfer-Encoding: chunked) as the bytes it carries. */
function dechunked(text: string): string {
  const raw = Buffer.from(text, 'utf8'); // the export here is ASCII
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Sends one byte every `everyMs` until the connection closes. */
function trickle(upload: RawUpload, bytes: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (upload.socket.destroyed || i >= bytes.length) return clearInterval(timer);
    upload.send(bytes[i++] as string);
  }, everyMs);
  upload.socket.once('close', () => clearInterval(timer));
}

/** A project of its own with a token that writes it, and a run in it. */
async function projectRun(server: TestServer, name: string) {
  const p = await server.json(
    '/projects',
    jsonBody({ name: `${name}-${Date.now()}-${Math.random()}` }),
    projectAnswer,
  );
  expect(p.status).toBe(201);
  const run = await createRun(server, { project: p.body.id });
  return { projectId: p.body.id, run };
}

describe.each(backends)('clients that trickle on $name', (backend) => {
  const server = useServer(backend, {
    MESHBENCH_MAX_CONCURRENT_BATCHES: '2',
    MESHBENCH_BODY_MIN_RATE: '1000',
    MESHBENCH_BODY_RATE_WINDOW_MS: '500',
  });

  it('takes no batch slot for a body that sends a byte now and then, and cuts it at the minimum rate', async () => {
    const run = await createRun(server);
    const body = batch(2000);
    // More tricklers than slots: each sends a byte every 100 ms, never idle for the
    // 30 s idle timeout, far below the minimum of 1000 bytes/s.
    const tricklers = await Promise.all(
      [0, 1, 2, 3].map(() =>
        rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
          token: server.token,
          contentLength: Buffer.byteLength(body),
          start: '',
        }),
      ),
    );
    for (const t of tricklers) trickle(t, body, 100);
    await new Promise((r) => setTimeout(r, 200));
    // Another client's whole batch is taken meanwhile: the tricklers hold no slot.
    const other = await createRun(server);
    const answer = await postEvents(server, other.id, batch(10));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const started = Date.now();
    for (const t of tricklers) {
      const response = await within(t, 5000);
      t.abort();
      expect(statusOf(response), response).toBe(408);
      expect(response).toContain('MESHBENCH_BODY_MIN_RATE');
      expect(headerOf(response, 'connection')).toBe('close');
    }
    // Cut within a few windows of 500 ms, not at the 30 s idle timeout.
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await server.json(`/runs/${run.id}/changes`)).body).toEqual([]);
  });

  it('holds every upload route to the minimum rate: JSON routes and result files too', async () => {
    const run = await createRun(server);
    const json = '{"benchmark":"b","scenario":"s","mesh":{"name":"consul"}}';
    const targets = [
      { path: '/api/v1/runs', contentType: 'application/json', body: json },
      {
        path: `/api/v1/runs/${run.id}/results?format=fortio`,
        contentType: 'application/json',
        body: `{"Labels":"x","pad":"${'a'.repeat(2000)}"}`,
      },
    ];
    for (const target of targets) {
      const upload = await rawUpload(server.url, target.path, {
        token: server.token,
        contentType: target.contentType,
        contentLength: Buffer.byteLength(target.body),
        start: '',
      });
      trickle(upload, target.body, 100);
      const response = await within(upload, 5000);
      upload.abort();
      expect(statusOf(response), `${target.path}: ${response}`).toBe(408);
      expect(response).toContain('body_too_slow');
    }
  });

  it('takes a body sent at once, however small, and a steady one above the minimum', async () => {
    const run = await createRun(server);
    const body = batch(100); // ~9 KB in 10 pieces over 1 s: about 9000 bytes/s
    const upload = await rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
      token: server.token,
      contentLength: Buffer.byteLength(body),
      start: '',
    });
    const step = Math.ceil(body.length / 10);
    for (let from = 0; from < body.length; from += step) {
      upload.send(body.slice(from, from + step));
      await new Promise((r) => setTimeout(r, 100));
    }
    await upload.answered;
    upload.socket.end();
    const response = await upload.response;
    expect(statusOf(response), response).toBe(200);
    expect(response).toContain('"accepted":101');
  });
});

describe.each(backends.filter((b) => b.name === 'postgres'))(
  'batch slots shared between projects on $name',
  (backend) => {
    // On Postgres a batch streams into COPY and holds its slot (and a connection) while it
    // arrives; on the embedded database it takes one only once read whole (no client holds it).
    const server = useServer(backend, {
      MESHBENCH_MAX_CONCURRENT_BATCHES: '2',
      MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT: '1',
      MESHBENCH_BODY_MIN_RATE: '0',
    });

    it("refuses a project's batch past its share while another project sends, and takes the other's", async () => {
      const a = await projectRun(server, 'fair-a');
      const b = await projectRun(server, 'fair-b');
      const body = batch(3000); // ~250 KB; 100 KB of it sent, then nothing
      const start = body.slice(0, 100_000);
      const first = await rawUpload(server.url, `/api/v1/runs/${a.run.id}/events`, {
        token: server.token,
        contentLength: Buffer.byteLength(body),
        start,
      });
      await new Promise((r) => setTimeout(r, 300));
      // Project b sends a batch: it takes the free slot.
      const answer = await postEvents(server, b.run.id, batch(10));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      // A slot is free again, but project a holds its share while b sends too.
      const second = await rawUpload(server.url, `/api/v1/runs/${a.run.id}/events`, {
        token: server.token,
        contentLength: Buffer.byteLength(body),
        start,
      });
      const refused = await within(second, 3000);
      second.abort();
      expect(statusOf(refused), refused).toBe(503);
      expect(headerOf(refused, 'retry-after')).toBe('1');
      expect(refused).toContain('MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT');
      // Project b still finds the slot project a may not take.
      expect((await postEvents(server, b.run.id, batch(10))).status).toBe(200);
      // And project a, once its first batch is done, is served again.
      first.send(body.slice(100_000));
      await first.answered;
      first.socket.end();
      expect(statusOf(await first.response)).toBe(200);
      expect((await postEvents(server, a.run.id, batch(10))).status).toBe(200);
    });
  },
);

/** A small Fortio result file (the fields the decoder reads). */
const fortioFile = (label: string) =>
  JSON.stringify({
    RunType: 'HTTP',
    Labels: label,
    StartTime: iso(0),
    RequestedQPS: '100',
    RequestedDuration: '10s',
    ActualQPS: 99.9,
    ActualDuration: 10_000_000_000,
    NumThreads: 4,
    DurationHistogram: {
      Count: 2,
      Min: 0.001,
      Max: 0.002,
      Sum: 0.003,
      Avg: 0.0015,
      StdDev: 0.0005,
      Data: [{ Start: 0.001, End: 0.002, Percent: 100, Count: 2 }],
      Percentiles: [{ Percentile: 50, Value: 0.0015 }],
    },
    RetCodes: { '200': 2 },
  });

describe.each(backends)('fair shares of result-file slots on $name', (backend) => {
  const server = useServer(backend, {
    MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS: '2',
    MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS_PER_PROJECT: '1',
    MESHBENCH_BODY_MIN_RATE: '0',
  });
  const postFile = (runId: string, label: string) =>
    server.json(`/runs/${runId}/results?format=fortio`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: fortioFile(label),
    });
  /** A k6 stream (read as it arrives: it holds its slot) of which only a first line came. */
  const openStream = (runId: string) =>
    rawUpload(server.url, `/api/v1/runs/${runId}/results?format=k6-ndjson`, {
      token: server.token,
      contentType: 'application/x-ndjson',
      contentLength: 1_000_000,
      start:
        '{"type":"Metric","data":{"name":"http_reqs","type":"counter","contains":"default"},"metric":"http_reqs"}\n',
    });

  it("refuses a project's result file past its share while another project sends, and takes the other's", async () => {
    const a = await projectRun(server, 'files-a');
    const b = await projectRun(server, 'files-b');
    const first = await openStream(a.run.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(await within(first, 100)).toBe(''); // held, no answer yet
    // Project b sends a file: it takes the free slot.
    const fromB = await postFile(b.run.id, 'b1');
    expect(fromB.status, JSON.stringify(fromB.body)).toBe(201);
    // A slot is free again, but project a holds its share while b sends too.
    const second = await openStream(a.run.id);
    const refused = await within(second, 3000);
    second.abort();
    expect(statusOf(refused), refused).toBe(503);
    expect(headerOf(refused, 'retry-after')).toBe('1');
    expect(refused).toContain('MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS_PER_PROJECT');
    // Project b still finds the slot project a may not take.
    expect((await postFile(b.run.id, 'b2')).status).toBe(201);
    // And project a, once its stream is gone, is served again.
    first.abort();
    await new Promise((r) => setTimeout(r, 200));
    expect((await postFile(a.run.id, 'a1')).status).toBe(201);
  });
});

describe.each(backends)('bytes held by bodies in progress on $name', (backend) => {
  const server = useServer(backend, {
    MESHBENCH_MAX_HELD_BYTES: String(4 * 1024 * 1024),
    MESHBENCH_BODY_MIN_RATE: '0',
  });

  it('refuses a body past the bound on bytes held with 503 + Retry-After, and takes one once they are given back', async () => {
    const run = await createRun(server);
    // Result files announced at 8 MB (the limit of one), each half-sent and held open.
    const half = `{"Labels":"${'a'.repeat(1024 * 1024)}`;
    const open: RawUpload[] = [];
    let refused = '';
    for (let i = 0; i < 12 && !refused; i++) {
      const upload = await rawUpload(server.url, `/api/v1/runs/${run.id}/results?format=fortio`, {
        token: server.token,
        contentType: 'application/json',
        contentLength: 8 * 1024 * 1024,
        start: half,
      });
      open.push(upload);
      // Either it is held (no answer yet) or it is refused at once.
      refused = await within(upload, 500);
    }
    expect(statusOf(refused), refused.slice(0, 300)).toBe(503);
    expect(headerOf(refused, 'retry-after')).toBe('1');
    expect(refused).toContain('MESHBENCH_MAX_HELD_BYTES');
    // No more than 4 MiB were held: at most 4 bodies of 1 MiB before the refusal.
    expect(open.length).toBeLessThanOrEqual(5);
    // The JSON routes count against the same bound.
    const json = await rawUpload(server.url, '/api/v1/runs', {
      token: server.token,
      contentType: 'application/json',
      contentLength: 3 * 1024 * 1024,
      start: `{"benchmark":"${'b'.repeat(2 * 1024 * 1024)}`,
    });
    const jsonRefused = await within(json, 3000);
    json.abort();
    expect(statusOf(jsonRefused), jsonRefused.slice(0, 300)).toBe(503);
    expect(jsonRefused).toContain('MESHBENCH_MAX_HELD_BYTES');

    for (const upload of open) upload.abort();
    await new Promise((r) => setTimeout(r, 200));
    // Given back when their clients went: a whole file and a batch are taken again.
    const file = await server.json(`/runs/${run.id}/results?format=fortio`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"Labels":"${'a'.repeat(3 * 1024 * 1024)}"}`,
    });
    expect(file.status).not.toBe(503);
    expect((await postEvents(server, run.id, batch(10))).status).toBe(200);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/^meshbench_held_body_bytes 0$/m);
    expect(metrics).toMatch(/^meshbench_held_bytes_refused_total [1-9]\d*$/m);
  });
});

describe.each(backends.filter((b) => b.name === 'postgres'))(
  'a project alone on $name',
  (backend) => {
    const server = useServer(backend, {
      MESHBENCH_MAX_CONCURRENT_BATCHES: '2',
      MESHBENCH_MAX_CONCURRENT_BATCHES_PER_PROJECT: '1',
      MESHBENCH_BODY_MIN_RATE: '0',
    });

    it('takes every slot while no other project wants one', async () => {
      const a = await projectRun(server, 'alone');
      const body = batch(3000);
      const uploads = await Promise.all(
        [0, 1].map(() =>
          rawUpload(server.url, `/api/v1/runs/${a.run.id}/events`, {
            token: server.token,
            contentLength: Buffer.byteLength(body),
            start: body.slice(0, 100_000),
          }),
        ),
      );
      await new Promise((r) => setTimeout(r, 300));
      for (const upload of uploads) upload.send(body.slice(100_000));
      for (const upload of uploads) {
        await upload.answered;
        upload.socket.end();
        const response = await upload.response;
        expect(statusOf(response), response).toBe(200);
      }
    });
  },
);

/** Sessions of this Postgres database other than ours inside a transaction (none embedded). */
async function openTransactions(database: Database): Promise<number> {
  if (database.kind !== 'postgres') return 0;
  const result = await database.db.execute(
    sql`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()
          and state in ('active', 'idle in transaction', 'idle in transaction (aborted)')`,
  );
  return (result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0;
}

describe.each(backends)('a paused reader of an export on $name', (backend) => {
  let database: Database;
  const server = useServer({
    ...backend,
    open: async () => {
      database = await backend.open();
      return database;
    },
  });

  it('holds no database connection: /health and the runs list answer while it reads nothing', async () => {
    const run = await createRun(server);
    // ~12 MB of NDJSON: far more than the socket buffers of a reader that takes nothing.
    const N = 120_000;
    const stored = await postEvents(server, run.id, batch(N));
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);

    const reader = await rawUpload(server.url, `/api/v1/runs/${run.id}/events`, {
      token: server.token,
      method: 'GET',
      contentLength: 0,
      start: '',
      headers: { connection: 'close' },
    });
    await reader.answered;
    reader.socket.pause(); // reads nothing more, does not go away
    let response = '';
    try {
      await new Promise((r) => setTimeout(r, 1000));
      // No transaction is left open for the reader (Postgres: none of the pool's sessions).
      expect(await openTransactions(database)).toBe(0);
      const health = await server.api('/health', { signal: AbortSignal.timeout(4000) });
      expect(health.status).toBe(200);
      await health.text();
      const runs = await server.api('/runs?limit=5', { signal: AbortSignal.timeout(4000) });
      expect(runs.status).toBe(200);
      await runs.text();
      const changes = await server.api(`/runs/${run.id}/changes`, {
        signal: AbortSignal.timeout(4000),
      });
      expect(changes.status).toBe(200);
      await changes.text();

      // Read to its end, the export is whole: every event once, in the form the API takes.
      reader.socket.resume();
      response = await Promise.race([
        reader.response,
        new Promise<string>((r) => setTimeout(() => r(''), 30_000)),
      ]);
    } finally {
      reader.abort();
    }
    expect(statusOf(response)).toBe(200);
    const lines = dechunked(response.slice(response.indexOf('\r\n\r\n') + 4))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; proxy?: string });
    expect(lines.filter((l) => l.type === 'change')).toHaveLength(1);
    const proxies = new Set(lines.filter((l) => l.type === 'observation').map((l) => l.proxy));
    expect(lines).toHaveLength(N + 1);
    expect(proxies.size).toBe(N);
  });
});
