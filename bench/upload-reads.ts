// bench/upload-reads: on the embedded database (one connection), how long reads take while
// events are uploaded, beside the same reads with no upload, in the same run:
//   1. no upload (the baseline);
//   2. `meshbench events` (the built CLI, the real sender) posting a 1,000,000-line file in
//      its default batches of 50,000;
//   3. a slow uploader: one batch of 50,000 events trickled over ~10 s;
//   4. one JSON-array batch (application/json) of --json-mb MB (default 64), sent at once;
//   5. a 1 MB junk YAML-looking result file (parsed off the event loop until the 5 s limit).
// For 4 and 5 the figure that matters is the longest a read waited (max): an upload that
// holds the event loop stalls every read for as long as it holds it (target ~100 ms).
// Reads are sent at a fixed rate whatever the server does (open loop: a stalled server
// gets the reads it would have had, each timed from when it was due), a mix of what a run
// page asks for. Budget: read p99 <= 1 s during each upload. Exits 1 over budget.
// Usage: tsx upload-reads.ts [--lines N] [--rate READS_PER_S] [--json-mb MB]

import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as schema from '@meshbench/schema';
import { changeLine, observationBlock, observationLine } from './lib/propagation-data.ts';
import { AUTH, BENCH_TOKEN, startApi } from './lib/server.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : fallback;
};
const LINES = Number(arg('lines', '1000000'));
const RATE = Number(arg('rate', '40'));
const JSON_MB = Number(arg('json-mb', '64'));
const SLOW_EVENTS = 50_000;
const SLOW_SECONDS = 10;
const BASELINE_SECONDS = 10;
const BUDGET_P99_MS = 1000;
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
  until.finally(() => {
    done = true;
  });
  const started = performance.now();
  for (let i = 0; !done; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (done) break;
    const path = paths[i % paths.length] as string;
    pending.push(
      fetch(`${url}${path}`)
        .then(async (r) => {
          await r.arrayBuffer();
          if (!r.ok) out.errors++;
          out.samples.push(performance.now() - due);
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

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'meshbench-upload-reads-'));
  const api = await startApi({ MESHBENCH_DATA_DIR: join(dir, 'data') });
  const newRun = async (scenario: string) =>
    json(schema.run)(
      await fetch(`${api.url}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH },
        body: JSON.stringify({ benchmark: 'bench', scenario, mesh: { name: 'consul' } }),
      }),
    );
  let failed = false;
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
    // The file the CLI uploads.
    const file = join(dir, 'events.ndjson');
    const out = createWriteStream(file);
    out.write(`${changeLine('c1', LINES - 1)}\n`);
    for (let from = 0; from < LINES - 1; from += 10_000) {
      const block = observationBlock('c1', from, Math.min(LINES - 1, from + 10_000));
      if (!out.write(block)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    await new Promise<void>((r) => out.end(() => r()));

    const baseline = stats(
      await readWhile(
        api.url,
        seeded.id,
        new Promise((r) => setTimeout(r, BASELINE_SECONDS * 1000)),
      ),
    );

    const target = await newRun('cli-upload');
    const uploadStarted = performance.now();
    let exit = -1;
    const upload = cli(['events', target.id, file], {
      MESHBENCH_URL: api.url,
      MESHBENCH_TOKEN: BENCH_TOKEN,
    }).then((code) => {
      exit = code;
    });
    const duringCli = stats(await readWhile(api.url, seeded.id, upload));
    const uploadMs = performance.now() - uploadStarted;
    if (exit !== 0) throw new Error(`the CLI exited with ${exit}`);
    const stored = await json(schema.propagation)(
      await fetch(`${api.url}/api/v1/runs/${target.id}/changes/c1/propagation`),
    );
    if (stored.observations !== LINES - 1)
      throw new Error(`stored ${stored.observations} of ${LINES - 1}`);

    const slowRun = await newRun('slow-upload');
    const lines = [changeLine('c1', SLOW_EVENTS)];
    for (let i = 0; i < SLOW_EVENTS; i++) lines.push(observationLine('c1', i));
    const slowBody = gzipSync(`${lines.join('\n')}\n`);
    const slow = slowUpload(api.url, slowRun.id, slowBody, SLOW_SECONDS);
    const duringSlow = stats(await readWhile(api.url, seeded.id, slow));
    const slowAnswer = await slow;
    if (!slowAnswer.startsWith('HTTP/1.1 200')) throw new Error(`slow upload: ${slowAnswer}`);

    // One JSON-array batch, sent at once.
    const jsonRun = await newRun('json-array');
    const jsonEvents: string[] = [];
    for (let bytes = 0; bytes < JSON_MB * 1024 * 1024; ) {
      const line = observationLine('c1', jsonEvents.length);
      jsonEvents.push(line);
      bytes += line.length + 1;
    }
    const jsonBody = `[${changeLine('c1', jsonEvents.length)},${jsonEvents.join(',')}]`;
    jsonEvents.length = 0;
    const jsonPost = fetch(`${api.url}/api/v1/runs/${jsonRun.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: jsonBody,
    }).then(json(schema.ingestResult));
    const duringJson = stats(await readWhile(api.url, seeded.id, jsonPost));
    const jsonStored = await jsonPost;

    // A 1 MB junk file that looks like YAML (was results.int.test.ts's timed case).
    const yamlRun = await newRun('junk-yaml');
    const junk = `latencies_ms:\n${Array.from({ length: 85_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`;
    const yamlPost = fetch(`${api.url}/api/v1/runs/${yamlRun.id}/results`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...AUTH },
      body: junk,
    }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
    const duringYaml = stats(await readWhile(api.url, seeded.id, yamlPost));
    const yamlStatus = await yamlPost;
    if (yamlStatus !== 422) throw new Error(`junk YAML: ${yamlStatus}, expected 422`);

    const row = (name: string, s: ReturnType<typeof stats>) =>
      `  ${name.padEnd(44)} p50 ${fmt(s.p50, 1).padStart(8)} ms   p99 ${fmt(s.p99, 1).padStart(8)} ms   max ${fmt(s.max, 0).padStart(6)} ms   (${fmt(s.n)} reads, ${s.errors} errors; p99 ${fmt(s.p99 / baseline.p99, 1)} x baseline)`;
    console.log('\nbench/upload-reads (embedded database)');
    console.log(`  reads: ${RATE}/s, open loop, run / changes / propagation / runs list in turn`);
    console.log(row('no upload (baseline)', baseline));
    console.log(
      row(`during meshbench events, ${fmt(LINES)} lines (${fmt(uploadMs / 1000, 1)} s)`, duringCli),
    );
    console.log(
      row(`during a slow upload, ${fmt(SLOW_EVENTS)} events over ${SLOW_SECONDS} s`, duringSlow),
    );
    console.log(
      row(
        `during a JSON array, ${fmt(jsonBody.length / 1048576)} MB, ${fmt(jsonStored.accepted)} events`,
        duringJson,
      ),
    );
    console.log(row('during a 1 MB junk YAML-looking result file', duringYaml));
    console.log(
      `  longest stall past the baseline's max: JSON array ${fmt(duringJson.max - baseline.max)} ms, junk YAML ${fmt(duringYaml.max - baseline.max)} ms (target ~100 ms)`,
    );
    console.log(`  budget: p99 <= ${BUDGET_P99_MS} ms during each upload`);
    for (const [name, s] of [
      ['meshbench events', duringCli],
      ['slow upload', duringSlow],
      ['junk YAML', duringYaml],
    ] as const) {
      if (!(s.p99 <= BUDGET_P99_MS) || s.errors > 0) {
        console.log(`  OVER BUDGET: ${name} p99 ${fmt(s.p99, 1)} ms, ${s.errors} errors`);
        failed = true;
      }
    }
    // Reported, not failed on: on the embedded database a batch's transaction holds the one
    // connection while it is stored, however its decoding is cut (issue 26, left open).
    if (!(duringJson.p99 <= BUDGET_P99_MS) || duringJson.errors > 0)
      console.log(
        `  over budget, known: JSON array p99 ${fmt(duringJson.p99, 1)} ms, ${duringJson.errors} errors (its transaction holds the embedded database)`,
      );
    console.log(`  API peak RSS ${fmt(api.peakRssMiB())} MiB`);
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
