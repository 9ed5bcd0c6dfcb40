// bench/live: a run watched live by 100 viewers (GET /runs/{id}/live, each its own stream),
// against the built API as its own process, on Postgres and on the embedded database.
// 1. Time from an accepted batch (its 200) to the state holding it at each viewer: p50/p95/max
//    over every viewer and round, beside the same with one viewer (the same-run baseline).
//    Rounds are 1.2 s apart: the stream sends at most one state a second by design, so a
//    batch landing within a second of the last state waits for the next second.
// 2. The 178,000-observation batch end to end until accepted, with 100 viewers watching the
//    run beside no viewer, alternated, median of each (budget <= 1.10); and with its summary
//    read after (which then meets the watch's read of the new state).
//    Each pair prints its figures and the load average beside them (a shared machine).
// Usage: tsx live.ts [--viewers N] [--rounds N] [--observations N] [--repeats N] [--embedded 0] [--postgres 0] [--port P]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { EventStreamParser } from '@meshbench/client';
import * as schema from '@meshbench/schema';
import { budget, reportBudgets } from './lib/budget.ts';
import { benchClient } from './lib/client.ts';
import { changeLine, observationBlock } from './lib/propagation-data.ts';
import { type ApiProcess, DEFAULT_DATABASE_URL, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const VIEWERS = arg('viewers', 100);
const ROUNDS = arg('rounds', 15);
const N = arg('observations', 178_000);
const REPEATS = arg('repeats', 5);
/** The API's port (the embedded one is the next); 0: any free port. */
const PORT = arg('port', 0);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const EMBEDDED = arg('embedded', 1);
const POSTGRES = arg('postgres', 1);
const ROUND_BATCH = 1000;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const rank = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(1, Math.ceil((p / 100) * s.length)) - 1] as number;
};
const median = (xs: number[]) => rank(xs, 50);

async function createRun(api: ApiProcess, scenario: string) {
  return benchClient(api).runs.create({ benchmark: 'bench', scenario, mesh: { name: 'consul' } });
}

async function postEvents(api: ApiProcess, runId: string, body: Uint8Array, key: string) {
  await benchClient(api).runs.postEvents(runId, {
    body: body as Uint8Array<ArrayBuffer>, // gzipSync's, never shared memory
    contentType: 'application/x-ndjson',
    contentEncoding: 'gzip',
    idempotencyKey: key,
  });
  return performance.now();
}

/** A viewer: its stream read as it comes; `seen(count)` resolves when a state holds it. */
interface Viewer {
  seen(count: number): Promise<number>;
  close(): void;
}

async function viewer(api: ApiProcess, runId: string): Promise<Viewer> {
  const abort = new AbortController();
  const response = await fetch(`${api.url}/api/v1/runs/${runId}/live`, {
    signal: abort.signal,
  });
  if (!response.ok || !response.body) throw new Error(`live: ${response.status}`);
  let count = -1;
  let at = 0;
  const waiting: { count: number; resolve: (t: number) => void }[] = [];
  let ready: () => void = () => {};
  const first = new Promise<void>((r) => {
    ready = r;
  });
  (async () => {
    const parser = new EventStreamParser();
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      for (const e of parser.push(decoder.decode(chunk, { stream: true }))) {
        const now = performance.now();
        // Each viewer parses its state, as a page or the CLI does.
        const state = schema.runLive.parse(JSON.parse(e.data));
        count = state.propagation[0]?.summary?.count ?? 0;
        at = now;
        ready();
        for (const w of [...waiting])
          if (count >= w.count) {
            waiting.splice(waiting.indexOf(w), 1);
            w.resolve(now);
          }
      }
    }
  })().catch(() => {});
  await first;
  return {
    seen: (n) =>
      count >= n
        ? Promise.resolve(at)
        : new Promise((resolve) => waiting.push({ count: n, resolve })),
    close: () => abort.abort(),
  };
}

async function latency(api: ApiProcess, viewers: number): Promise<number[]> {
  const run = await createRun(api, `live-latency-${viewers}`);
  await postEvents(api, run.id, gzipSync(`${changeLine('c1', ROUNDS * ROUND_BATCH)}\n`), 'c');
  const all = await Promise.all(Array.from({ length: viewers }, () => viewer(api, run.id)));
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await new Promise((res) => setTimeout(res, 1200));
    const body = gzipSync(observationBlock('c1', r * ROUND_BATCH, (r + 1) * ROUND_BATCH));
    const waits = all.map((v) => v.seen((r + 1) * ROUND_BATCH));
    const accepted = await postEvents(api, run.id, body, `r${r}`);
    for (const t of await Promise.all(waits)) samples.push(Math.max(0, t - accepted));
  }
  for (const v of all) v.close();
  return samples;
}

async function bigBatch(api: ApiProcess, viewers: number, i: number) {
  const run = await createRun(api, `live-178k-${viewers}-${i}`);
  const all = await Promise.all(Array.from({ length: viewers }, () => viewer(api, run.id)));
  const body = gzipSync(`${changeLine('c1', N)}\n${observationBlock('c1', 0, N)}`);
  const started = performance.now();
  const accepted = (await postEvents(api, run.id, body, 'big')) - started;
  const summary = await benchClient(api).runs.propagation(run.id, 'c1');
  if (summary.count !== N) throw new Error(`stored ${summary.count} of ${N}`);
  const ms = performance.now() - started;
  // And when the viewers had it.
  const seen = all.length ? Math.max(...(await Promise.all(all.map((v) => v.seen(N))))) : started;
  for (const v of all) v.close();
  return { acceptedMs: accepted, ms, seenMs: seen - started };
}

async function backend(name: string, api: ApiProcess) {
  console.log(`\n${name} (load average ${load()})`);
  const one = await latency(api, 1);
  const many = await latency(api, VIEWERS);
  const p95One = rank(one, 95);
  const p95 = rank(many, 95);
  console.log(
    `  accepted batch -> state at the viewer, 1 viewer (baseline): p50 ${fmt(rank(one, 50))} ms, p95 ${fmt(p95One)} ms, max ${fmt(Math.max(...one))} ms (${one.length} samples)`,
  );
  console.log(
    `  accepted batch -> state at the viewer, ${VIEWERS} viewers: p50 ${fmt(rank(many, 50))} ms, p95 ${fmt(p95)} ms, max ${fmt(Math.max(...many))} ms (${many.length} samples); p95 ${fmt(p95 / p95One, 2)}x the baseline (budget p95 <= 1,000 ms: ${budget(`${name} live p95 with ${VIEWERS} viewers <= 1 s`, p95 <= 1000)})`,
  );
  // One unmeasured first: the first large batch of a process pays for its warm-up.
  await bigBatch(api, 0, -1);
  const none: number[] = [];
  const watched: number[] = [];
  const noneAccepted: number[] = [];
  const watchedAccepted: number[] = [];
  const seen: number[] = [];
  // Alternated, the watched one first every other time: neither order gets the warmer start.
  for (let i = 0; i < REPEATS; i++) {
    const order = i % 2 === 0 ? [VIEWERS, 0] : [0, VIEWERS];
    const pair: string[] = [];
    for (const v of order) {
      const got = await bigBatch(api, v, i);
      pair.push(`${v} viewers ${fmt(got.acceptedMs)} ms`);
      if (v === 0) {
        none.push(got.ms);
        noneAccepted.push(got.acceptedMs);
      } else {
        watched.push(got.ms);
        watchedAccepted.push(got.acceptedMs);
        seen.push(got.seenMs);
      }
    }
    console.log(`    pair ${i + 1}: ${pair.join(', ')} (accepted; load average ${load()})`);
  }
  // The cost to ingest: the batch until accepted (its 200), with and without the viewers.
  const ratio = median(watchedAccepted) / median(noneAccepted);
  console.log(
    `  ${fmt(N)} observations accepted (gzip NDJSON, one request), median of ${REPEATS}: no viewer ${fmt(median(noneAccepted))} ms (baseline), ${VIEWERS} viewers ${fmt(median(watchedAccepted))} ms, ${fmt(ratio, 3)}x (budget <= 1.10: ${budget(`${name} ${fmt(N)} batch with ${VIEWERS} viewers within 10 %`, ratio <= 1.1)})`,
  );
  console.log(
    `  the same with its summary read after: no viewer ${fmt(median(none))} ms, ${VIEWERS} viewers ${fmt(median(watched))} ms, ${fmt(median(watched) / median(none), 3)}x (the read meets the watch's own read of the new state); the viewers had the state ${fmt(median(seen))} ms after the post began (median)`,
  );
  console.log(`  API peak RSS ${fmt(api.peakRssMiB())} MiB; load average at the end ${load()}`);
}

if (POSTGRES) {
  const pg = await startApi({
    DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    ...(PORT ? { PORT: String(PORT) } : {}),
  });
  try {
    await backend('postgres', pg);
  } finally {
    await pg.stop();
  }
}
if (EMBEDDED) {
  const dir = mkdtempSync(join(tmpdir(), 'meshbench-bench-live-'));
  const embedded = await startApi({
    DATABASE_URL: undefined,
    MESHBENCH_DATA_DIR: dir,
    ...(PORT ? { PORT: String(PORT + 1) } : {}),
  });
  try {
    await backend('embedded', embedded);
  } finally {
    await embedded.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
reportBudgets('live');
