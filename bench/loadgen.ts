// bench/loadgen: the raw-sample formats (hey -o csv, JMeter's JTL CSV, Vegeta's JSON, Gatling's
// binary simulation.log, Vegeta's binary gob results) of a 10-minute run at 10,000 requests a
// second (6,000,000 samples; --seconds N scales it), each posted gzip to the results import over
// 127.0.0.1, read as it arrives. Printed: the import's time as a multiple of the run's real time
// (budget >= 20x), its rate, and the API's peak RSS before and after. Beside each in the same
// run: a raw COPY of the same rows into an unlogged table of the file's columns, the floor of
// storing them at all: for the text formats the same decompressed bytes, from the same gzip; for
// the binary ones (no COPY reads them) the same records written as CSV, gzip, made with the file.
// Every file is made before anything is timed.
// Usage: tsx loadgen.ts [--seconds N] [--rounds N] [--formats hey,jmeter,vegeta,gatling-binary,vegeta-gob]
// (DATABASE_URL, default the local test db)
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { GatlingLogWriter } from '@meshbench/api/gatling-binary-encode';
import { nearestRank } from '@meshbench/api/nearest-rank';
import { encodeVegetaGob, type VegetaResult } from '@meshbench/api/vegeta-gob-encode';
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
const ROUNDS = arg('rounds', 1);
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
  /** The format the import stores it as. */
  stored: string;
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
    stored: 'hey',
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
    stored: 'jmeter',
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
    stored: 'vegeta',
    header: null,
    copy: 'format text',
    table: 'line text',
    row: (startMs, ms, status) =>
      `{"attack":"bench","seq":${Math.floor(startMs * 10)},"code":${status},"timestamp":"${new Date(T0_MS + Math.floor(startMs)).toISOString().slice(0, 23)}${String(Math.floor((startMs % 1) * 1e6)).padStart(6, '0')}Z","latency":${Math.round(ms * 1e6)},"bytes_out":0,"bytes_in":1290,"error":"${status === 200 ? '' : '503 Service Unavailable'}","body":null,"method":"GET","url":"http://127.0.0.1:8080/","headers":{"Content-Type":["text/plain"]}}`,
  },
];

interface Sample {
  startMs: number;
  ms: number;
  status: number;
}

/** SECONDS x RPS samples a second at a time, log-normal around 2 ms, 1 in 500 a 503. */
function* seconds(): Generator<Sample[]> {
  const next = random(7);
  for (let s = 0; s < SECONDS; s++) {
    const rows: Sample[] = [];
    for (let k = 0; k < RPS; k++) {
      const u = Math.max(next(), 1e-12);
      const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
      const ms = Math.max(0.1, 2 * Math.exp(0.5 * z));
      rows.push({ startMs: s * 1000 + k / (RPS / 1000), ms, status: next() < 0.002 ? 503 : 200 });
    }
    yield rows;
  }
}

/** A gzip stream gathered into one buffer, written with backpressure. */
function gzipSink() {
  const gz = createGzip();
  const parts: Buffer[] = [];
  let bytes = 0;
  gz.on('data', (c: Buffer) => parts.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    gz.on('end', resolve);
    gz.on('error', reject);
  });
  return {
    async write(b: Buffer | string): Promise<void> {
      bytes += b.length;
      if (!gz.write(b)) await once(gz, 'drain');
    },
    async end(): Promise<{ gzip: Buffer; bytes: number }> {
      gz.end();
      await ended;
      return { gzip: Buffer.concat(parts), bytes };
    },
  };
}

/** A file to post and the rows its COPY baseline stores. */
interface Prepared {
  name: string;
  stored: string;
  contentType: string;
  gzip: Buffer;
  bytes: number;
  samples: number;
  copy: { table: string; options: string; gzip: Buffer; bytes: number };
}

/** A text format's file, gzip; its COPY reads the same gzip. */
async function textFile(f: Format): Promise<Prepared> {
  const sink = gzipSink();
  let samples = 0;
  if (f.header !== null) await sink.write(`${f.header}\n`);
  for (const rows of seconds()) {
    samples += rows.length;
    await sink.write(`${rows.map((r) => f.row(r.startMs, r.ms, r.status)).join('\n')}\n`);
  }
  const { gzip, bytes } = await sink.end();
  return {
    name: f.name,
    stored: f.stored,
    contentType: 'text/plain',
    gzip,
    bytes,
    samples,
    copy: { table: f.table, options: f.copy, gzip, bytes },
  };
}

interface BinaryFormat {
  name: 'gatling-binary' | 'vegeta-gob';
  stored: string;
  /** The unlogged table of the records' fields that the same records as CSV are COPYed into. */
  table: string;
  /** A fresh writer: the file's opening bytes, each second's samples as the file's bytes and as
   * CSV lines of the same records (from sample number i0), and the file's closing bytes. */
  writer: () => {
    head: () => Buffer;
    second: (i0: number, rows: Sample[]) => { bin: Buffer; csv: string };
    tail: () => Buffer;
  };
}

type GatlingRecord = Parameters<GatlingLogWriter['write']>[0];
const USERS = 50;
const KO_MESSAGE = 'status.find.is(200), but actually found 503';
const VEGETA_HEADERS = { 'Content-Type': ['text/plain'] };
const vegetaResult = (i: number, r: Sample): VegetaResult => ({
  attack: 'bench',
  seq: i,
  code: r.status,
  timestamp: {
    unixS: T0_MS / 1000 + Math.floor(i / RPS),
    nanos: (i % RPS) * (1e9 / RPS),
    offsetMin: null,
  },
  latencyNs: Math.round(r.ms * 1e6),
  bytesIn: 1290,
  error: r.status === 200 ? '' : '503 Service Unavailable',
  body: null,
  method: 'GET',
  url: 'http://127.0.0.1:8080/',
  headers: VEGETA_HEADERS,
});
/** The bytes encodeVegetaGob writes first (the type definitions), left off all but the first piece. */
const VEGETA_DEFINITIONS = (() => {
  const one = vegetaResult(1, { startMs: 0, ms: 1, status: 200 });
  return 2 * encodeVegetaGob([one]).length - encodeVegetaGob([one, one]).length;
})();

const BINARY_FORMATS: BinaryFormat[] = [
  {
    // gatling/gatling LogFileDataWriter (3.13 on), through gatling-binary.encode.ts: the RUN
    // record, USERS users starting, one REQUEST record a sample (times int ms after the RUN
    // start, the name and the KO message cached strings), the users ending.
    name: 'gatling-binary',
    stored: 'gatling',
    table: 'groups text, name text, start_ms int, end_ms int, ok boolean, message text',
    writer: () => {
      const w = new GatlingLogWriter();
      const user = (start: boolean, timestamp: number): GatlingRecord => ({
        kind: 'user',
        scenario: 0,
        start,
        timestamp,
      });
      return {
        head: () => {
          w.write({
            kind: 'run',
            version: '3.14.3',
            simulation: 'mesh.LoadgenSimulation',
            start: T0_MS,
            description: '',
            scenarios: ['loadgen'],
            assertions: [],
          });
          for (let u = 0; u < USERS; u++) w.write(user(true, T0_MS));
          return w.take();
        },
        second: (_i0, rows) => {
          const csv: string[] = [];
          for (const r of rows) {
            const start = Math.floor(r.startMs);
            const end = start + Math.round(r.ms);
            const ok = r.status === 200;
            const message = ok ? '' : KO_MESSAGE;
            w.write({
              kind: 'request',
              groups: [],
              name: 'GET /',
              start: T0_MS + start,
              end: T0_MS + end,
              ok,
              message,
            });
            csv.push(`,GET /,${start},${end},${ok},"${message}"`);
          }
          return { bin: w.take(), csv: `${csv.join('\n')}\n` };
        },
        tail: () => {
          for (let u = 0; u < USERS; u++) w.write(user(false, T0_MS + SECONDS * 1000));
          return w.take();
        },
      };
    },
  },
  {
    // tsenart/vegeta `vegeta attack`'s output, through vegeta-gob.encode.ts: the same results
    // as the JSON lines above, gob-encoded by one Encoder (the type definitions once).
    name: 'vegeta-gob',
    stored: 'vegeta',
    table:
      'attack text, seq bigint, code int, ts timestamptz, latency bigint, bytes_out bigint, bytes_in bigint, error text, method text, url text, headers text',
    writer: () => ({
      head: () => Buffer.alloc(0),
      second: (i0, rows) => {
        const results = rows.map((r, k) => vegetaResult(i0 + k, r));
        const bin = encodeVegetaGob(results);
        const csv = results.map(
          (v) =>
            `bench,${v.seq},${v.code},${new Date(v.timestamp.unixS * 1000).toISOString().slice(0, 19)}.${String(v.timestamp.nanos).padStart(9, '0')}Z,${v.latencyNs},0,1290,${v.error},GET,http://127.0.0.1:8080/,"{""Content-Type"":[""text/plain""]}"`,
        );
        return {
          bin: i0 === 0 ? bin : bin.subarray(VEGETA_DEFINITIONS),
          csv: `${csv.join('\n')}\n`,
        };
      },
      tail: () => Buffer.alloc(0),
    }),
  },
];

/** A binary format's file, gzip, and the same records as CSV, gzip, for its COPY. */
async function binaryFile(f: BinaryFormat): Promise<Prepared> {
  const file = gzipSink();
  const csv = gzipSink();
  const w = f.writer();
  let samples = 0;
  await file.write(w.head());
  for (const rows of seconds()) {
    const { bin, csv: lines } = w.second(samples, rows);
    samples += rows.length;
    await file.write(bin);
    await csv.write(lines);
  }
  await file.write(w.tail());
  const made = await file.end();
  const copy = await csv.end();
  return {
    name: f.name,
    stored: f.stored,
    contentType: 'application/octet-stream',
    gzip: made.gzip,
    bytes: made.bytes,
    samples,
    copy: { table: f.table, options: 'format csv', gzip: copy.gzip, bytes: copy.bytes },
  };
}

/** The same rows COPYed into an unlogged table of the file's columns. */
async function copyBaseline(f: Prepared): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const table = `bench_loadgen_${f.name.replace('-', '_')}`;
  try {
    await client.query(`drop table if exists ${table}`);
    await client.query(`create unlogged table ${table} (${f.copy.table})`);
    const started = performance.now();
    const gunzip = createGunzip({ chunkSize: 256 * 1024 });
    gunzip.end(f.copy.gzip);
    await pipeline(
      gunzip,
      client.query(copyFrom(`copy ${table} from stdin with (${f.copy.options})`)),
    );
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

const ALL = [...FORMATS.map((f) => f.name), ...BINARY_FORMATS.map((f) => f.name)];
const picked = (() => {
  const i = process.argv.indexOf('--formats');
  if (i < 0) return ALL;
  const names = (process.argv[i + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((n) => !ALL.includes(n as (typeof ALL)[number]));
  if (unknown.length > 0 || names.length === 0)
    throw new Error(`--formats takes some of ${ALL.join(',')}; not ${unknown.join(',')}`);
  return names;
})();

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function main() {
  console.log(
    `bench/loadgen: ${fmt(SECONDS)} s at ${fmt(RPS)} requests/s = ${fmt(SECONDS * RPS)} samples a file${SECONDS === 600 ? '' : ` (scaled from the 10-minute run's 6,000,000)`}; ${picked.join(', ')}; ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}, the formats interleaved in each`,
  );
  // Every file made first, outside the timed part.
  const files: Prepared[] = [];
  for (const name of picked) {
    const started = performance.now();
    const text = FORMATS.find((f) => f.name === name);
    const binary = BINARY_FORMATS.find((f) => f.name === name);
    const file = text ? await textFile(text) : await binaryFile(binary as BinaryFormat);
    files.push(file);
    console.log(
      `  made ${name}: ${fmt(file.bytes / 1e6)} MB (${fmt(file.gzip.length / 1e6, 1)} MB gzip)${file.copy.gzip === file.gzip ? '' : `, its rows as CSV for the COPY ${fmt(file.copy.bytes / 1e6)} MB (${fmt(file.copy.gzip.length / 1e6, 1)} MB gzip)`} in ${fmt((performance.now() - started) / 1000, 1)} s (not timed)`,
    );
  }
  const figures = new Map<string, { ms: number; copyMs: number }[]>();
  const api = await startApi({ DATABASE_URL: databaseUrl });
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const f of files) {
        const created = await fetch(`${api.url}/api/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...AUTH },
          body: JSON.stringify({
            benchmark: 'bench',
            scenario: 'loadgen',
            mesh: { name: 'istio' },
          }),
        });
        const runId = schema.run.parse(await created.json()).id;
        try {
          const load = loadAverage();
          const idleRss = api.peakRssMiB();
          const started = performance.now();
          const response = await fetch(`${api.url}/api/v1/runs/${runId}/results`, {
            method: 'POST',
            headers: { 'content-type': f.contentType, 'content-encoding': 'gzip', ...AUTH },
            body: f.gzip,
          });
          const answer = await response.text();
          const ms = performance.now() - started;
          if (response.status !== 201) throw new Error(`${f.name}: ${response.status} ${answer}`);
          const peakRss = api.peakRssMiB();
          const [stored] = schema.storedLoadResult
            .array()
            .parse(await (await fetch(`${api.url}/api/v1/runs/${runId}/results`)).json());
          if (stored?.requests !== f.samples || stored.format !== f.stored) {
            throw new Error(`${f.name}: stored ${stored?.requests} requests as ${stored?.format}`);
          }
          const copyMs = await copyBaseline(f);
          figures.set(f.name, [...(figures.get(f.name) ?? []), { ms, copyMs }]);
          const realTime = SECONDS / (ms / 1000);
          console.log(
            `  round ${round} ${f.name} (load average ${load} before): imported in ${fmt(ms)} ms = ${fmt(f.samples / (ms / 1000))} samples/s = ${fmt(realTime, 1)}x real time (budget >= 20x: ${budget(`${f.name} >= 20x real time`, realTime >= 20)}); raw COPY of the same rows ${fmt(copyMs)} ms = ${fmt(SECONDS / (copyMs / 1000), 1)}x real time; the import takes ${fmt(ms / copyMs, 2)}x the COPY`,
          );
          console.log(
            `    API peak RSS ${fmt(idleRss)} MiB before, ${fmt(peakRss)} MiB after (budget <= ${fmt(idleRss + 200)} MiB: ${budget(`${f.name} peak RSS <= idle + 200 MiB`, peakRss <= idleRss + 200)})`,
          );
        } finally {
          await deleteRun(runId);
        }
      }
    }
  } finally {
    await api.stop();
  }
  if (ROUNDS > 1) {
    // The median is the lower one by nearest rank (exact: one of the rounds' figures).
    const median = (xs: number[]) =>
      [...xs].sort((a, b) => a - b)[nearestRank(50, xs.length) - 1] as number;
    for (const [name, rounds] of figures) {
      const ms = median(rounds.map((r) => r.ms));
      const copyMs = median(rounds.map((r) => r.copyMs));
      const ratio = median(rounds.map((r) => r.ms / r.copyMs));
      console.log(
        `  ${name}, median of ${rounds.length} rounds (nearest rank): import ${fmt(ms)} ms = ${fmt(SECONDS / (ms / 1000), 1)}x real time, raw COPY ${fmt(copyMs)} ms = ${fmt(SECONDS / (copyMs / 1000), 1)}x, the import ${fmt(ratio, 2)}x the COPY (the median of each round's ratio)`,
      );
    }
  }
  reportBudgets('bench/loadgen');
}

await main();
