// bench/loadgen: the raw-sample formats (hey -o csv, JMeter's JTL CSV, Vegeta's JSON) of a 10-minute run at
// 10,000 requests a second (6,000,000 samples; --seconds N scales it), each posted gzip to the
// results import over 127.0.0.1, read as it arrives. Printed: the import's time as a multiple
// of the run's real time (budget >= 20x), its rate, and the API's peak RSS before and after.
// Beside each in the same run: a raw COPY of the same rows (the same decompressed bytes, from
// the same gzip) into an unlogged table of the file's columns, the floor of storing them at all.
// Usage: tsx loadgen.ts [--seconds N] (DATABASE_URL, default the local test db)
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import * as schema from '@meshbench/schema';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { budget, reportBudgets } from './lib/budget.ts';
import { AUTH, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 600);
const RPS = 10_000;
const T0_MS = Date.UTC(2026, 10, 27, 12, 0, 0);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** mulberry32, so every run sends the same files. */
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

interface Format {
  name: 'hey' | 'jmeter' | 'vegeta';
  /** The header line, if the format has one. */
  header: string | null;
  /** COPY's options for the same text. */
  copy: string;
  /** The unlogged table COPY fills: the file's columns. */
  table: string;
  row: (startMs: number, latencyMs: number, status: number) => string;
}

const FORMATS: Format[] = [
  {
    // rakyll/hey requester/print.go csvTmpl: seconds with 4 decimals.
    name: 'hey',
    header:
      'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset',
    copy: 'format csv, header true',
    table:
      'response_time float8, dial float8, dns float8, req_write float8, delay float8, res_read float8, status int, "offset" float8',
    row: (startMs, ms, status) =>
      `${(ms / 1000).toFixed(4)},0.0000,0.0000,0.0000,${((ms * 0.9) / 1000).toFixed(4)},0.0001,${status},${(startMs / 1000).toFixed(4)}`,
  },
  {
    // JMeter >= 3.1 default columns (CSVSaveService printableFieldNamesToString).
    name: 'jmeter',
    header:
      'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect',
    copy: 'format csv, header true',
    table:
      'ts bigint, elapsed int, label text, code text, message text, thread text, data_type text, success boolean, failure text, bytes bigint, sent bigint, grp int, all_threads int, url text, latency int, idle int, connect int',
    row: (startMs, ms, status) =>
      `${T0_MS + Math.floor(startMs)},${Math.round(ms)},GET /,${status},${status === 200 ? 'OK' : 'Service Unavailable'},Thread Group 1-${1 + (Math.floor(startMs) % 50)},text,${status === 200},,1290,120,50,50,http://127.0.0.1:8080/,${Math.round(ms * 0.9)},0,0`,
  },
  {
    // tsenart/vegeta lib/results_easyjson.go: one object a line, latency in ns. No header, and
    // JSON is no column COPY can split: each line COPYed whole into one text column.
    name: 'vegeta',
    header: null,
    copy: 'format text',
    table: 'line text',
    row: (startMs, ms, status) =>
      `{"attack":"bench","seq":${Math.floor(startMs * 10)},"code":${status},"timestamp":"${new Date(T0_MS + Math.floor(startMs)).toISOString().slice(0, 23)}${String(Math.floor((startMs % 1) * 1e6)).padStart(6, '0')}Z","latency":${Math.round(ms * 1e6)},"bytes_out":0,"bytes_in":1290,"error":"${status === 200 ? '' : '503 Service Unavailable'}","body":null,"method":"GET","url":"http://127.0.0.1:8080/","headers":{"Content-Type":["text/plain"]}}`,
  },
];

/** The file, gzip: SECONDS x RPS samples, log-normal around 2 ms, 1 in 500 a 503. */
async function gzipFile(f: Format): Promise<{ gzip: Buffer; bytes: number; samples: number }> {
  const next = random(7);
  let bytes = 0;
  let samples = 0;
  const parts: Buffer[] = [];
  function* text(): Generator<string> {
    if (f.header !== null) yield `${f.header}\n`;
    for (let s = 0; s < SECONDS; s++) {
      const rows: string[] = [];
      for (let k = 0; k < RPS; k++) {
        const u = Math.max(next(), 1e-12);
        const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
        const ms = Math.max(0.1, 2 * Math.exp(0.5 * z));
        rows.push(f.row(s * 1000 + k / (RPS / 1000), ms, next() < 0.002 ? 503 : 200));
      }
      samples += RPS;
      yield `${rows.join('\n')}\n`;
    }
  }
  await pipeline(
    Readable.from(
      (function* () {
        for (const t of text()) {
          bytes += t.length;
          yield t;
        }
      })(),
    ),
    createGzip(),
    async (gz: AsyncIterable<Buffer>) => {
      for await (const c of gz) parts.push(c);
    },
  );
  return { gzip: Buffer.concat(parts), bytes, samples };
}

/** The same decompressed bytes COPYed into an unlogged table of the file's columns. */
async function copyBaseline(f: Format, gzip: Buffer): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const table = `bench_loadgen_${f.name}`;
  try {
    await client.query(`drop table if exists ${table}`);
    await client.query(`create unlogged table ${table} (${f.table})`);
    const started = performance.now();
    const gunzip = createGunzip({ chunkSize: 256 * 1024 });
    gunzip.end(gzip);
    await pipeline(gunzip, client.query(copyFrom(`copy ${table} from stdin with (${f.copy})`)));
    return performance.now() - started;
  } finally {
    await client.query(`drop table if exists ${table}`);
    await client.end();
  }
}

async function deleteRun(runId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('delete from load_results where run_id = $1', [runId]);
  await client.query('delete from result_uploads where run_id = $1', [runId]);
  await client.query('delete from runs where id = $1', [runId]);
  await client.end();
}

async function main() {
  console.log(
    `bench/loadgen: ${fmt(SECONDS)} s at ${fmt(RPS)} requests/s = ${fmt(SECONDS * RPS)} samples a file${SECONDS === 600 ? '' : ` (scaled from the 10-minute run's 6,000,000)`}`,
  );
  const api = await startApi({ DATABASE_URL: databaseUrl });
  try {
    for (const f of FORMATS) {
      const { gzip, bytes, samples } = await gzipFile(f);
      const created = await fetch(`${api.url}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH },
        body: JSON.stringify({ benchmark: 'bench', scenario: 'loadgen', mesh: { name: 'istio' } }),
      });
      const runId = schema.run.parse(await created.json()).id;
      try {
        const idleRss = api.peakRssMiB();
        const started = performance.now();
        const response = await fetch(`${api.url}/api/v1/runs/${runId}/results`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip', ...AUTH },
          body: gzip,
        });
        const answer = await response.text();
        const ms = performance.now() - started;
        if (response.status !== 201) throw new Error(`${f.name}: ${response.status} ${answer}`);
        const peakRss = api.peakRssMiB();
        const [stored] = schema.storedLoadResult
          .array()
          .parse(await (await fetch(`${api.url}/api/v1/runs/${runId}/results`)).json());
        if (stored?.requests !== samples || stored.format !== f.name) {
          throw new Error(`${f.name}: stored ${stored?.requests} requests as ${stored?.format}`);
        }
        const copyMs = await copyBaseline(f, gzip);
        const realTime = SECONDS / (ms / 1000);
        console.log(
          `  ${f.name}: ${fmt(bytes / 1e6)} MB (${fmt(gzip.length / 1e6, 1)} MB gzip) imported in ${fmt(ms)} ms = ${fmt(samples / (ms / 1000))} samples/s = ${fmt(realTime, 1)}x real time (budget >= 20x: ${budget(`${f.name} >= 20x real time`, realTime >= 20)}); raw COPY of the same rows ${fmt(copyMs)} ms = ${fmt(SECONDS / (copyMs / 1000), 1)}x real time; the import takes ${fmt(ms / copyMs, 2)}x the COPY`,
        );
        console.log(
          `    API peak RSS ${fmt(idleRss)} MiB before, ${fmt(peakRss)} MiB after (budget <= ${fmt(idleRss + 200)} MiB: ${budget(`${f.name} peak RSS <= idle + 200 MiB`, peakRss <= idleRss + 200)})`,
        );
      } finally {
        await deleteRun(runId);
      }
    }
  } finally {
    await api.stop();
  }
  reportBudgets('bench/loadgen');
}

await main();
