// bench/k6-stream: a long k6 run's `--out json` stream (default 500 MB decompressed, gzip on
// the wire, over 127.0.0.1) posted to the results import, which reads it line by line as it
// arrives into 1 s HdrHistograms. Printed: time, MB/s (decompressed), the API's peak RSS
// before and after. Beside them in the same run, in this process, over the same gzip bytes:
// gunzip and split into lines (the floor of any line reader), and that plus JSON.parse of
// each line (the floor of any k6 NDJSON reader that parses its lines).
// Usage: tsx k6-stream.ts [--mb N] (DATABASE_URL, default the local test db)
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import * as schema from '@meshbench/schema';
import pg from 'pg';
import { budget, reportBudgets } from './lib/budget.ts';
import { AUTH, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TARGET_BYTES = arg('mb', 500) * 1e6;
const PER_SECOND = 1000;
const T0_MS = Date.UTC(2026, 10, 26, 12, 0, 0);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

// The line shapes of the decoder's fixture (k6's own output): its Metric lines, and its
// http_reqs and http_req_duration points with only the time and value changed.
type Line = { type: string; metric: string; data: Record<string, unknown> };
const fixture = readFileSync(
  new URL('../apps/api/src/ingest/results/fixtures/k6-out-json.ndjson', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Line);
const lineOf = (type: string, metric: string) => {
  const found = fixture.find((l) => l.type === type && l.metric === metric);
  if (!found) throw new Error(`the fixture has no ${type} line of ${metric}`);
  return found;
};
const point = (template: Line, time: string, value: number) =>
  JSON.stringify({ ...template, data: { ...template.data, time, value } });

/** mulberry32, so every run sends the same stream. */
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

/** The stream's text a second at a time until TARGET_BYTES: 1,000 requests a second. */
function* stream(): Generator<string> {
  const next = random(1);
  const reqs = lineOf('Point', 'http_reqs');
  const duration = lineOf('Point', 'http_req_duration');
  let bytes = 0;
  const head = `${['vus', 'http_reqs', 'http_req_duration'].map((m) => JSON.stringify(lineOf('Metric', m))).join('\n')}\n`;
  bytes += head.length;
  yield head;
  for (let s = 0; bytes < TARGET_BYTES; s++) {
    let text = '';
    for (let k = 0; k < PER_SECOND; k++) {
      const ms = T0_MS + s * 1000 + k;
      const time = `${new Date(ms).toISOString().slice(0, 23)}${String(250_981 + k).padStart(6, '0')}Z`;
      const u = Math.max(next(), 1e-12);
      const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
      const value = Math.max(1, Math.round(2000 * Math.exp(0.5 * z))) / 1000;
      text += `${point(reqs, time, 1)}\n${point(duration, time, value)}\n`;
    }
    bytes += text.length;
    yield text;
  }
}

/** The gzip bytes of the stream, with its decompressed size and request count. */
async function gzipStream(): Promise<{ gzip: Buffer; bytes: number; requests: number }> {
  const parts: Buffer[] = [];
  let bytes = 0;
  let requests = 0;
  await pipeline(
    Readable.from(
      (function* () {
        let second = -1; // the first text is the Metric lines
        for (const text of stream()) {
          bytes += text.length;
          if (second++ >= 0) requests += PER_SECOND;
          yield text;
        }
      })(),
    ),
    createGzip(),
    async (gzipped: AsyncIterable<Buffer>) => {
      for await (const c of gzipped) parts.push(c);
    },
  );
  return { gzip: Buffer.concat(parts), bytes, requests };
}

/** In this process: gunzip the bytes and split them into lines, optionally parsing each. */
async function baseline(gzip: Buffer, parse: boolean): Promise<{ ms: number; lines: number }> {
  const started = performance.now();
  let lines = 0;
  let held = '';
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  gunzip.end(gzip);
  for await (const chunk of gunzip as AsyncIterable<Buffer>) {
    if (!parse) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      continue;
    }
    const text = held + chunk.toString('utf8');
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      JSON.parse(text.slice(from, nl));
      lines++;
      from = nl + 1;
    }
    held = text.slice(from);
  }
  return { ms: performance.now() - started, lines };
}

async function deleteRun(runId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('delete from load_slots where run_id = $1', [runId]);
  await client.query('delete from load_intervals where run_id = $1', [runId]);
  await client.query('delete from load_results where run_id = $1', [runId]);
  await client.query('delete from runs where id = $1', [runId]);
  await client.end();
}

async function main() {
  const made = performance.now();
  const { gzip, bytes, requests } = await gzipStream();
  const mb = bytes / 1e6;
  console.log(
    `bench/k6-stream: ${fmt(mb)} MB of k6 --out json (${fmt(requests)} requests over ${fmt(requests / PER_SECOND)} s, ${fmt(gzip.length / 1e6, 1)} MB gzip), made in ${fmt((performance.now() - made) / 1000, 1)} s`,
  );
  const api = await startApi({ DATABASE_URL: databaseUrl });
  let runId: string | undefined;
  try {
    const created = await fetch(`${api.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({ benchmark: 'bench', scenario: 'k6-stream', mesh: { name: 'istio' } }),
    });
    runId = schema.run.parse(await created.json()).id;
    const idleRss = api.peakRssMiB();
    const started = performance.now();
    const response = await fetch(`${api.url}/api/v1/runs/${runId}/results`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip', ...AUTH },
      body: gzip,
    });
    const answer = await response.text();
    const ms = performance.now() - started;
    if (response.status !== 201) throw new Error(`${response.status} ${answer}`);
    const peakRss = api.peakRssMiB();
    const results = schema.storedLoadResult
      .array()
      .parse(await (await fetch(`${api.url}/api/v1/runs/${runId}/results`)).json());
    if (results.length !== 1 || results[0]?.requests !== requests) {
      throw new Error(`stored ${results.length} results, ${results[0]?.requests} requests`);
    }
    const split = await baseline(gzip, false);
    const parsed = await baseline(gzip, true);
    const mbps = mb / (ms / 1000);
    console.log(
      `  POST (gzip, read as it arrives): ${fmt(ms)} ms = ${fmt(mbps, 1)} MB/s decompressed (budget >= 20 MB/s: ${budget('stream >= 20 MB/s', mbps >= 20)})`,
    );
    console.log(
      `  API peak RSS: ${fmt(idleRss)} MiB before the upload, ${fmt(peakRss)} MiB after (budget <= ${fmt(idleRss + 200)} MiB: ${budget('peak RSS <= idle + 200 MiB', peakRss <= idleRss + 200)}; the body is ${fmt(mb)} MB)`,
    );
    console.log(
      `  in this process over the same bytes: gunzip + split ${fmt(split.ms)} ms (${fmt(mb / (split.ms / 1000), 1)} MB/s, ${fmt(split.lines)} lines); + JSON.parse of each line ${fmt(parsed.ms)} ms (${fmt(mb / (parsed.ms / 1000), 1)} MB/s); the POST takes ${fmt(ms / split.ms, 1)}x the first, ${fmt(ms / parsed.ms, 2)}x the second`,
    );
  } finally {
    if (runId) await deleteRun(runId);
    await api.stop();
  }
  reportBudgets('bench/k6-stream');
}

await main();
