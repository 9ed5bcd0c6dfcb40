// bench/upload-reads: how long reads wait while one upload is stored, beside the same reads
// with no upload just before it (its same-run baseline), on the embedded database (one
// connection) and on Postgres:
//   1. `meshbench events` (the built CLI, the real sender) posting a --lines line file in
//      its default batches of 50,000 (--lines 0 leaves it out);
//   2. a slow uploader: one batch of 50,000 events trickled over ~10 s;
//   3. one JSON-array batch (application/json) of --json-mb MB (default 64), sent at once;
//   4. a valid HdrHistogram interval log of --hdr-intervals intervals (default 20,000);
//   5. a 1 MB junk YAML-looking result file (parsed off the event loop until the 5 s limit).
// The figure that matters is the longest a read waited (max) past the baseline's: an upload
// that holds the event loop, or the embedded database's one connection, stalls every read
// for as long as it holds it. Target: max <= the baseline's max + 100 ms (issue 26).
// Reads are sent at a fixed rate whatever the server does (open loop: a stalled server
// gets the reads it would have had, each timed from when it was due), a mix of what a run
// page asks for. Budgets: read p99 <= 1 s during each upload, and during the JSON array and
// the interval log, max <= the baseline's max + STALL_BUDGET_MS. Exits 1 over budget.
// Usage: tsx upload-reads.ts [--database embedded|postgres|both] [--lines N] [--rate READS_PER_S]
//   [--json-mb MB] [--hdr-intervals N] [--only cli,slow,json,hdr,yaml] [--upload-from bench|child]
//   (Postgres: DATABASE_URL, default the local test db; UPLOAD_READS_TRACE=<file>: each read's times)

import { spawn } from 'node:child_process';
import { appendFileSync, createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as schema from '@meshbench/schema';
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { changeLine, observationBlock, observationLine } from './lib/propagation-data.ts';
import { AUTH, BENCH_TOKEN, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : fallback;
};
const LINES = Number(arg('lines', '1000000'));
const RATE = Number(arg('rate', '40'));
const JSON_MB = Number(arg('json-mb', '64'));
const HDR_INTERVALS = Number(arg('hdr-intervals', '20000'));
const DATABASES = arg('database', 'both');
/** Which uploads to measure: cli, slow, json, hdr, yaml (comma-separated; default all). */
const ONLY = new Set(arg('only', 'cli,slow,json,hdr,yaml').split(','));
const SLOW_EVENTS = 50_000;
const SLOW_SECONDS = 10;
const BASELINE_SECONDS = 4;
const BUDGET_P99_MS = 1000;
/** How much longer than the baseline's longest read the longest read during a heavy upload may wait. */
const STALL_BUDGET_MS = 150;
/** UPLOAD_READS_TRACE=<file>: one JSON line per read and per bench event-loop gap (investigation). */
const TRACE = process.env.UPLOAD_READS_TRACE;
/** --upload-from child: the JSON array and the interval log are posted by a child process. */
const UPLOAD_FROM = arg('upload-from', 'bench');
const CLI = fileURLToPath(new URL('../packages/cli/dist/cli.js', import.meta.url));
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** An answer read with its schema from @meshbench/schema: `json(schema.run)(response)`. */
const json =
  <T>(parser: { parse(value: unknown): T }) =>
  async (response: Response): Promise<T> => {
    const text = await response.text();
    if (!response.ok) throw new Error(`${response.status} ${text}`);
    return parser.parse(JSON.parse(text));
  };

interface Latencies {
  samples: number[];
  errors: number;
}

/** Reads at RATE per second until `until` settles; each timed from when it was due. */
async function readWhile(url: string, runId: string, until: Promise<unknown>): Promise<Latencies> {
  const paths = [
    `/api/v1/runs/${runId}`,
    `/api/v1/runs/${runId}/changes`,
    `/api/v1/runs/${runId}/changes/c1/propagation?percentiles=50,90,99`,
    '/api/v1/runs?limit=20',
  ];
  const out: Latencies = { samples: [], errors: 0 };
  const pending: Promise<void>[] = [];
  let done = false;
  until.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  const started = performance.now();
  for (let i = 0; !done; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (done) break;
    const path = paths[i % paths.length] as string;
    const issued = performance.now();
    pending.push(
      fetch(`${url}${path}`)
        .then(async (r) => {
          const headers = performance.now();
          await r.arrayBuffer();
          if (!r.ok) out.errors++;
          out.samples.push(performance.now() - due);
          if (TRACE)
            appendFileSync(
              TRACE,
              `${JSON.stringify({ k: 'read', path, due: performance.timeOrigin + due, issued: performance.timeOrigin + issued, headers: performance.timeOrigin + headers, end: performance.timeOrigin + performance.now() })}\n`,
            );
        })
        .catch(() => {
          out.errors++;
        }),
    );
  }
  await Promise.all(pending);
  return out;
}

function stats(l: Latencies) {
  const s = [...l.samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
  return {
    n: s.length,
    errors: l.errors,
    p50: at(50),
    p99: at(99),
    max: s[s.length - 1] ?? Number.NaN,
  };
}
type Stats = ReturnType<typeof stats>;

function cli(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
  });
}

/** One batch sent as a client on a slow link would: its bytes spread over `seconds`. */
function slowUpload(url: string, runId: string, body: Buffer, seconds: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, async () => {
      socket.write(
        [
          `POST /api/v1/runs/${runId}/events HTTP/1.1`,
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${BENCH_TOKEN}`,
          'Content-Type: application/x-ndjson',
          'Content-Encoding: gzip',
          `Content-Length: ${body.length}`,
          'Connection: close',
          '',
          '',
        ].join('\r\n'),
      );
      const steps = seconds * 10;
      const step = Math.ceil(body.length / steps);
      for (let from = 0; from < body.length; from += step) {
        socket.write(body.subarray(from, from + step));
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    let response = '';
    socket.on('data', (d) => {
      response += d;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(response));
  });
}

/** mulberry32, so every run sends the same log. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A valid HdrHistogram interval log as HistogramLogWriter writes it: `intervals` 1 s lines,
 * each of 200 requests log-normal around 2 ms (µs values), cycling through 50 histograms.
 */
function intervalLog(intervals: number): string {
  const next = random(26);
  const templates = Array.from({ length: 50 }, () => {
    const h = build({ numberOfSignificantValueDigits: 3 });
    for (let k = 0; k < 200; k++) {
      const u = Math.max(next(), 1e-12);
      const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
      h.recordValue(Math.max(1, Math.round(2000 * Math.exp(0.5 * z))));
    }
    const base64 = encodeIntoCompressedBase64(h);
    return { base64, maxMs: decodeFromCompressedBase64(base64).maxValue / 1000 };
  });
  const t0 = Date.UTC(2026, 10, 27, 9, 0, 0);
  const lines = [
    '#[Histogram log format version 1.3]',
    `#[StartTime: ${(t0 / 1000).toFixed(3)} (seconds since epoch), ${new Date(t0)}]`,
    '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"',
  ];
  for (let s = 0; s < intervals; s++) {
    const t = templates[s % templates.length] as { base64: string; maxMs: number };
    lines.push(`${s}.000,1.000,${t.maxMs.toFixed(3)},${t.base64}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The child that posts a body when --upload-from child: file, url, content type in argv. */
const CHILD_POST = `
import { readFileSync } from 'node:fs';
const [file, url, type, token] = process.argv.slice(1);
const body = readFileSync(file);
const r = await fetch(url, { method: 'POST', headers: { 'content-type': type, authorization: 'Bearer ' + token }, body });
process.stdout.write(JSON.stringify({ status: r.status, text: await r.text() }));
`;

/**
 * POSTs `body` from this process (--upload-from bench) or from a child process (child), so
 * that encoding and sending it does not run on the event loop that times the reads.
 */
async function post(url: string, type: string, body: Buffer, dir: string): Promise<Response> {
  if (UPLOAD_FROM === 'bench')
    return fetch(url, { method: 'POST', headers: { 'content-type': type, ...AUTH }, body });
  if (UPLOAD_FROM !== 'child') throw new Error(`--upload-from: bench or child, got ${UPLOAD_FROM}`);
  const file = join(dir, 'body');
  writeFileSync(file, body);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', CHILD_POST, file, url, type, BENCH_TOKEN],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`the upload's child exited with ${code}`)),
    );
  });
  rmSync(file, { force: true });
  const { status, text } = JSON.parse(out) as { status: number; text: string };
  return new Response(text, { status });
}

interface Figure {
  name: string;
  baseline: Stats;
  during: Stats;
  /** Held to STALL_BUDGET_MS over its baseline's max (the heavy single uploads). */
  stallBudget: boolean;
  /** How long the upload took, sent to answered (ms). */
  uploadMs: number;
}

async function onDatabase(
  database: 'embedded' | 'postgres',
  inputs: { file: string; slowBody: Buffer; jsonBody: Buffer; jsonEvents: number; hdr: Buffer },
): Promise<{ figures: Figure[]; peakRssMiB: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'meshbench-upload-reads-'));
  const api = await startApi(
    database === 'embedded'
      ? { DATABASE_URL: undefined, MESHBENCH_DATA_DIR: join(dir, 'data') }
      : { DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL },
  );
  const newRun = async (scenario: string) =>
    json(schema.run)(
      await fetch(`${api.url}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH },
        body: JSON.stringify({ benchmark: 'bench', scenario, mesh: { name: 'consul' } }),
      }),
    );
  const figures: Figure[] = [];
  try {
    // What the reads read: a run with a change of 20,000 observations.
    const seeded = await newRun('read-target');
    await json(schema.ingestResult)(
      await fetch(`${api.url}/api/v1/runs/${seeded.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', ...AUTH },
        body: `${changeLine('c1', 20_000)}\n${observationBlock('c1', 0, 20_000)}`,
      }),
    );
    /** Reads with no upload, then the same reads during `upload()`. */
    const measure = async (name: string, stallBudget: boolean, upload: () => Promise<unknown>) => {
      const baseline = stats(
        await readWhile(
          api.url,
          seeded.id,
          new Promise((r) => setTimeout(r, BASELINE_SECONDS * 1000)),
        ),
      );
      const uploadStarted = performance.now();
      let uploadMs = 0;
      // The bench's own event loop: a gap here delays the reads it sends and times.
      let last = performance.now();
      let benchGapMs = 0;
      const probe = setInterval(() => {
        const now = performance.now();
        benchGapMs = Math.max(benchGapMs, now - last);
        if (TRACE && now - last > 20)
          appendFileSync(
            TRACE,
            `${JSON.stringify({ k: 'benchgap', t: performance.timeOrigin + now, gap: now - last })}\n`,
          );
        last = now;
      }, 5);
      if (TRACE)
        appendFileSync(
          TRACE,
          `${JSON.stringify({ k: 'upload', name, database, t: performance.timeOrigin + uploadStarted })}\n`,
        );
      const sent = upload().finally(() => {
        uploadMs = performance.now() - uploadStarted;
        if (TRACE)
          appendFileSync(
            TRACE,
            `${JSON.stringify({ k: 'uploaded', name, t: performance.timeOrigin + performance.now() })}\n`,
          );
      });
      const during = stats(await readWhile(api.url, seeded.id, sent));
      await sent.finally(() => clearInterval(probe));
      console.log(`  (${name}: the bench's own longest event-loop gap ${fmt(benchGapMs)} ms)`);
      figures.push({ name, baseline, during, stallBudget, uploadMs });
    };

    if (LINES > 0 && ONLY.has('cli')) {
      const target = await newRun('cli-upload');
      const started = performance.now();
      let exit = -1;
      await measure(`meshbench events, ${fmt(LINES)} lines`, false, async () => {
        exit = await cli(['events', target.id, inputs.file], {
          MESHBENCH_URL: api.url,
          MESHBENCH_TOKEN: BENCH_TOKEN,
        });
      });
      if (exit !== 0) throw new Error(`the CLI exited with ${exit}`);
      const stored = await json(schema.propagation)(
        await fetch(`${api.url}/api/v1/runs/${target.id}/changes/c1/propagation`),
      );
      if (stored.observations !== LINES - 1)
        throw new Error(`stored ${stored.observations} of ${LINES - 1}`);
      const last = figures[figures.length - 1] as Figure;
      last.name += ` (${fmt((performance.now() - started) / 1000 - BASELINE_SECONDS, 1)} s)`;
    }

    const slowRun = await newRun('slow-upload');
    if (ONLY.has('slow'))
      await measure(
        `slow upload, ${fmt(SLOW_EVENTS)} events over ${SLOW_SECONDS} s`,
        false,
        async () => {
          const answer = await slowUpload(api.url, slowRun.id, inputs.slowBody, SLOW_SECONDS);
          if (!answer.startsWith('HTTP/1.1 200')) throw new Error(`slow upload: ${answer}`);
        },
      );

    const jsonRun = await newRun('json-array');
    if (ONLY.has('json'))
      await measure(
        `JSON array, ${fmt(inputs.jsonBody.length / 1048576)} MB, ${fmt(inputs.jsonEvents)} events`,
        true,
        async () => {
          const stored = await json(schema.ingestResult)(
            await post(
              `${api.url}/api/v1/runs/${jsonRun.id}/events`,
              'application/json',
              inputs.jsonBody,
              dir,
            ),
          );
          if (stored.accepted !== inputs.jsonEvents)
            throw new Error(`JSON array: stored ${stored.accepted} of ${inputs.jsonEvents}`);
        },
      );

    const hdrRun = await newRun('hdr-log');
    if (ONLY.has('hdr'))
      await measure(
        `interval log, ${fmt(HDR_INTERVALS)} intervals, ${fmt(inputs.hdr.length / 1048576, 1)} MB`,
        true,
        async () => {
          const r = await post(
            `${api.url}/api/v1/runs/${hdrRun.id}/results?format=hdr-log`,
            'text/plain',
            inputs.hdr,
            dir,
          );
          const text = await r.text();
          if (r.status !== 201) throw new Error(`interval log: ${r.status} ${text}`);
        },
      );

    // A 1 MB junk file that looks like YAML (was results.int.test.ts's timed case).
    const yamlRun = await newRun('junk-yaml');
    const junk = `latencies_ms:\n${Array.from({ length: 85_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`;
    if (ONLY.has('yaml'))
      await measure('1 MB junk YAML-looking result file', false, async () => {
        const r = await fetch(`${api.url}/api/v1/runs/${yamlRun.id}/results`, {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream', ...AUTH },
          body: junk,
        });
        await r.arrayBuffer();
        if (r.status !== 422) throw new Error(`junk YAML: ${r.status}, expected 422`);
      });
    return { figures, peakRssMiB: api.peakRssMiB() };
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'meshbench-upload-reads-input-'));
  let failed = false;
  try {
    // The file the CLI uploads.
    const file = join(dir, 'events.ndjson');
    if (LINES > 0 && ONLY.has('cli')) {
      const out = createWriteStream(file);
      out.write(`${changeLine('c1', LINES - 1)}\n`);
      for (let from = 0; from < LINES - 1; from += 10_000) {
        const block = observationBlock('c1', from, Math.min(LINES - 1, from + 10_000));
        if (!out.write(block)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
      await new Promise<void>((r) => out.end(() => r()));
    }
    const lines = [changeLine('c1', SLOW_EVENTS)];
    for (let i = 0; i < SLOW_EVENTS; i++) lines.push(observationLine('c1', i));
    const slowBody = gzipSync(`${lines.join('\n')}\n`);
    const jsonEvents: string[] = [];
    for (let bytes = 0; bytes < JSON_MB * 1024 * 1024; ) {
      const line = observationLine('c1', jsonEvents.length);
      jsonEvents.push(line);
      bytes += line.length + 1;
    }
    // Bytes made here, before any read is timed: a string body is encoded by fetch when it is
    // sent, 64 MB on the event loop that sends and times the reads.
    const jsonBody = Buffer.from(
      `[${changeLine('c1', jsonEvents.length)},${jsonEvents.join(',')}]`,
    );
    const inputs = {
      file,
      slowBody,
      jsonBody,
      jsonEvents: jsonEvents.length + 1,
      hdr: Buffer.from(intervalLog(HDR_INTERVALS)),
    };
    jsonEvents.length = 0;

    const databases = DATABASES === 'both' ? (['embedded', 'postgres'] as const) : [DATABASES];
    for (const database of databases) {
      if (database !== 'embedded' && database !== 'postgres')
        throw new Error(`--database: embedded, postgres or both, got ${database}`);
      const { figures, peakRssMiB } = await onDatabase(database, inputs);
      console.log(`\nbench/upload-reads (${database} database)`);
      console.log(
        `  reads: ${RATE}/s, open loop, run / changes / propagation / runs list in turn; each upload beside ${BASELINE_SECONDS} s of the same reads just before it`,
      );
      console.log(
        `  ${'during'.padEnd(48)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}   baseline p99 / max ms   stall past baseline max   upload`,
      );
      for (const f of figures) {
        const stall = f.during.max - f.baseline.max;
        console.log(
          `  ${f.name.padEnd(48)} ${fmt(f.during.p99).padStart(8)} ${fmt(f.during.max).padStart(8)}   ${fmt(f.baseline.p99).padStart(8)} / ${fmt(f.baseline.max).padEnd(8)}   ${fmt(stall).padStart(6)} ms   ${fmt(f.uploadMs / 1000, 2).padStart(6)} s   (${fmt(f.during.n)} reads, ${f.during.errors} errors)`,
        );
        const over: string[] = [];
        if (!(f.during.p99 <= BUDGET_P99_MS)) over.push(`p99 > ${BUDGET_P99_MS} ms`);
        if (f.during.errors + f.baseline.errors > 0) over.push('read errors');
        if (f.stallBudget && !(stall <= STALL_BUDGET_MS))
          over.push(`max > baseline max + ${STALL_BUDGET_MS} ms`);
        if (over.length > 0) {
          console.log(`    OVER BUDGET: ${over.join(', ')}`);
          failed = true;
        }
      }
      console.log(
        `  budgets: p99 <= ${BUDGET_P99_MS} ms during each upload; JSON array and interval log: max <= baseline max + ${STALL_BUDGET_MS} ms (target ~100 ms)`,
      );
      console.log(`  API peak RSS ${fmt(peakRssMiB)} MiB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
