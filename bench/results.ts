// bench/results: a 10-minute, 500k RPS data-plane run from 4 load generators as 1 s
// HdrHistogram interval logs (2,400 histograms, 300,000,000 requests), posted to the results
// import (one file a generator) against real Postgres, then its stages view served. Beside
// them in the same run: a raw COPY of the same 2,400 interval rows (histogram bytes included),
// and hdr-histogram-js decoding and adding the 2,400 histograms per second in this process
// (what the stages view computes, by the reference library).
// Usage: tsx results.ts [--seconds N] (DATABASE_URL, default the local test db)
import * as schema from '@meshbench/schema';
import {
  build,
  decodeFromCompressedBase64,
  encodeIntoCompressedBase64,
  type Histogram,
} from 'hdr-histogram-js';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { budget, reportBudgets } from './lib/budget.ts';
import { AUTH, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 600);
const GENERATORS = 4;
const RPS = 500_000;
const PER_GENERATOR = RPS / GENERATORS;
/** Distinct interval histograms a generator cycles through (encoding 2,400 takes minutes). */
const TEMPLATES = 30;
const T0_MS = Date.UTC(2026, 10, 26, 12, 0, 0);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** mulberry32, so every run sends the same logs. */
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

/** One interval's latencies (us): 125,000 requests spread log-normally around 2 ms. */
function intervalHistogram(next: () => number): string {
  const h = build({ numberOfSignificantValueDigits: 3 });
  let left = PER_GENERATOR;
  while (left > 0) {
    const u = Math.max(next(), 1e-12);
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    const count = Math.min(left, 1 + Math.floor(next() * 120));
    h.recordValueWithCount(Math.max(1, Math.round(2000 * Math.exp(0.5 * z))), count);
    left -= count;
  }
  return encodeIntoCompressedBase64(h);
}

/** A generator's log as HistogramLogWriter writes it: format, StartTime, legend, lines. */
function generatorLog(g: number): { text: string; lines: { startMs: number; base64: string }[] } {
  const next = random(g + 1);
  const templates = Array.from({ length: TEMPLATES }, () => intervalHistogram(next));
  const lines: { startMs: number; base64: string }[] = [];
  let text = `#[Histogram log format version 1.3]\n#[StartTime: ${(T0_MS / 1000).toFixed(3)} (seconds since epoch), ${new Date(T0_MS)}]\n"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n`;
  for (let s = 0; s < SECONDS; s++) {
    const base64 = templates[s % TEMPLATES] as string;
    const max = decodeFromCompressedBase64(base64).maxValue / 1000;
    text += `${s}.000,1.000,${max.toFixed(3)},${base64}\n`;
    lines.push({ startMs: T0_MS + s * 1000, base64 });
  }
  return { text, lines };
}

async function median(times: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

/** The same interval rows by COPY into a scratch copy of load_intervals. */
async function rawCopy(runId: string, logs: ReturnType<typeof generatorLog>[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('create temp table scratch_intervals (like load_intervals)');
  const started = performance.now();
  const stream = client.query(
    copyFrom(
      'COPY scratch_intervals (run_id, result_id, start_ms, duration_ms, count, errors, min_ms, max_ms, hdr) FROM STDIN',
    ),
  );
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
    (async () => {
      for (const [g, log] of logs.entries()) {
        let chunk = '';
        for (const l of log.lines) {
          const hex = Buffer.from(l.base64, 'base64').toString('hex');
          chunk += `${runId}\t${g}\t${l.startMs}\t1000\t${PER_GENERATOR}\t\\N\t0.5\t20\t\\\\x${hex}\n`;
          if (chunk.length > 65536) {
            if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
            chunk = '';
          }
        }
        stream.write(chunk);
      }
      stream.end();
    })().catch(reject);
  });
  const ms = performance.now() - started;
  await client.end();
  return ms;
}

/** hdr-histogram-js decoding every interval and adding them per second, with p50/p99 of each. */
function referenceStages(logs: ReturnType<typeof generatorLog>[]): number {
  const started = performance.now();
  const slots = new Map<number, Histogram>();
  for (const log of logs) {
    for (const l of log.lines) {
      const h = decodeFromCompressedBase64(l.base64);
      let slot = slots.get(l.startMs);
      if (!slot) {
        slot = build({ bitBucketSize: 64 });
        slots.set(l.startMs, slot);
      }
      slot.add(h);
    }
  }
  for (const h of slots.values()) {
    h.getValueAtPercentile(50);
    h.getValueAtPercentile(99);
  }
  return performance.now() - started;
}

async function deleteRun(runId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('delete from load_intervals where run_id = $1', [runId]);
  await client.query('delete from load_results where run_id = $1', [runId]);
  await client.query('delete from runs where id = $1', [runId]);
  await client.end();
}

async function main() {
  const made = performance.now();
  const logs = Array.from({ length: GENERATORS }, (_, g) => generatorLog(g));
  const bytes = logs.reduce((n, l) => n + l.text.length, 0);
  console.log(
    `bench/results: ${GENERATORS} generators x ${SECONDS} s of 1 s intervals (${fmt(GENERATORS * SECONDS)} histograms, ${fmt(RPS * SECONDS)} requests), ${fmt(bytes / 2 ** 20, 1)} MiB of logs (made in ${fmt((performance.now() - made) / 1000, 1)} s)`,
  );
  const api = await startApi({ DATABASE_URL: databaseUrl });
  const runs: string[] = [];
  try {
    const ingestOnce = async () => {
      const created = await fetch(`${api.url}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH },
        body: JSON.stringify({ benchmark: 'bench', scenario: 'results', mesh: { name: 'istio' } }),
      });
      const run = schema.run.parse(await created.json());
      runs.push(run.id);
      const started = performance.now();
      for (const [g, log] of logs.entries()) {
        const response = await fetch(
          `${api.url}/api/v1/runs/${run.id}/results?mode=both&connections=64&targetRps=${RPS}&generator=gen-${g}`,
          { method: 'POST', headers: { 'content-type': 'text/plain', ...AUTH }, body: log.text },
        );
        const text = await response.text();
        if (response.status !== 201) throw new Error(`${response.status} ${text}`);
      }
      return { runId: run.id, ms: performance.now() - started };
    };
    await ingestOnce();
    const { runId, ms: ingestMs } = await ingestOnce();
    const realTime = (SECONDS * 1000) / ingestMs;

    const url = `${api.url}/api/v1/runs/${runId}/results/stages?percentiles=50,99`;
    const firstStarted = performance.now();
    const view = schema.loadStages.parse(await (await fetch(url)).json());
    const firstMs = performance.now() - firstStarted;
    if (
      view.series.length !== SECONDS ||
      view.series[0]?.requests !== RPS ||
      view.stages.length !== 1
    ) {
      throw new Error(`stages: ${view.series.length} slots, ${view.series[0]?.requests} requests`);
    }
    // Each its own URL (a third percentile) so the 1 s read cache answers none.
    let extra = 90;
    const another = () => {
      extra += 0.1;
      return extra.toFixed(1);
    };
    const stagesMs = await median(3, () => fetch(`${url},${another()}`).then((r) => r.text()));
    const listMs = await median(3, () =>
      fetch(`${api.url}/api/v1/runs/${runId}/results?percentiles=${another()}`).then((r) =>
        r.text(),
      ),
    );
    const copyMs = await rawCopy(runId, logs);
    const referenceMs = referenceStages(logs);

    console.log(
      `  ingest: ${fmt(ingestMs)} ms for 4 files = ${fmt(realTime, 1)}x real time (budget >= 20x: ${budget('ingest >= 20x real time', realTime >= 20)}); raw COPY of the same ${fmt(GENERATORS * SECONDS)} interval rows ${fmt(copyMs)} ms (ingest ${fmt(ingestMs / copyMs, 1)}x COPY)`,
    );
    console.log(
      `  stages view: first ${fmt(firstMs)} ms, uncached median of 3 ${fmt(stagesMs)} ms (budget <= 300 ms: ${budget('stages view <= 300 ms', stagesMs <= 300 && firstMs <= 300)}); hdr-histogram-js decoding and adding them in-process ${fmt(referenceMs)} ms (view ${fmt(stagesMs / referenceMs, 2)}x that)`,
    );
    console.log(`  results list with the merged step: uncached median of 3 ${fmt(listMs)} ms`);
    console.log(`  API peak RSS ${fmt(api.peakRssMiB())} MiB`);
  } finally {
    for (const id of runs) await deleteRun(id);
    await api.stop();
  }
  reportBudgets('bench/results');
}

await main();
