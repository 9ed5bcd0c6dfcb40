// bench/page-load: how long a person waits for the propagation numbers. Three runs of 178,000
// observations each (one per mesh), then in headless Chromium: navigation -> percentile table
// and histogram visible, for one run's page and for the compare page of the three.
// Beside each time, the bytes the page transferred until then (compressed bodies and headers,
// as Chromium's network layer counts them), with the run page's first load held to a budget.
// Then one more navigation of each with its waterfall: every request and long task, against
// the moment the numbers showed, so a slow figure says where its time went.
// Usage: tsx page-load.ts [--observations N] [--samples N] [--block-tail]
// --block-tail: the pages' tail requests fail at once (the figures then leave out what a slow
// tail read does to the reads beside it); each read's own time is printed either way.
// (DATABASE_URL: that Postgres; unset: the embedded database in a temporary directory)

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as schema from '@meshbench/schema';
import { type Browser, chromium } from 'playwright-core';
import { changeLine, observationLine } from './lib/propagation-data.ts';
import { AUTH, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('observations', 178_000);
const SAMPLES = arg('samples', 5);
const BLOCK_TAIL = process.argv.includes('--block-tail');
const RUN_BUDGET_MS = 1500;
const COMPARE_BUDGET_MS = 2500;
/** A first visit to a run page: the app's code and styles, the run's reads, compressed. */
const RUN_BUDGET_BYTES = 350_000;
const CHANGE = 'c1';
const MESHES = ['consul', 'istio', 'linkerd'] as const;

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

/** One run: its change, then N observations; each mesh takes its own slice of the generator. */
async function postRun(url: string, mesh: string, slice: number): Promise<string> {
  // Writes carry the admin token the bench's API was started with.
  const headers = { 'content-type': 'application/json', ...AUTH };
  const run = await json(schema.run)(
    await fetch(`${url}/api/v1/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        benchmark: 'bench',
        scenario: 'page-load',
        mesh: { name: mesh },
        topology: { instances: N },
      }),
    }),
  );
  const lines = [changeLine(CHANGE, N)];
  for (let i = slice * N; i < (slice + 1) * N; i++) lines.push(observationLine(CHANGE, i));
  await json(schema.ingestResult)(
    await fetch(`${url}/api/v1/runs/${run.id}/events`, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/x-ndjson',
        'content-encoding': 'gzip',
        'idempotency-key': `page-load-${run.id}`,
      },
      body: gzipSync(`${lines.join('\n')}\n`),
    }),
  );
  return run.id;
}

/** What the page did until it was ready: requests and main-thread tasks over 50 ms. */
interface Waterfall {
  resources: { name: string; start: number; end: number; bytes: number }[];
  longTasks: { start: number; duration: number }[];
}

// Long tasks are only reported to an observer that was there when they ran.
const OBSERVE_LONG_TASKS = `window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });`;

const READ_WATERFALL = `({
  resources: performance.getEntriesByType('resource').map((e) => ({
    name: e.name.replace(location.origin, ''),
    start: e.startTime,
    end: e.responseEnd,
    bytes: e.encodedBodySize,
  })),
  longTasks: window.__longTasks,
})`;

/**
 * Milliseconds from navigation start (the page's time origin) to the first frame in which
 * `ready` holds, measured in the page, and the bytes transferred by then (Chromium's
 * `encodedDataLength`: what came over the wire, compressed, headers included); a fresh
 * context each time, so nothing is cached.
 */
async function timeToReady(
  browser: Browser,
  url: string,
  ready: string,
): Promise<{ ms: number; bytes: number; waterfall: Waterfall }> {
  // The pages' CSP forbids eval; the bench's own probes (string predicates) need it.
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
  });
  try {
    await context.addInitScript(OBSERVE_LONG_TASKS);
    if (BLOCK_TAIL) await context.route(/\/tail(\?|$)/, (route) => route.abort());
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e) => {
      bytes += e.encodedDataLength;
    });
    await cdp.send('Network.enable');
    await page.goto(url, { waitUntil: 'commit' });
    const handle = await page.waitForFunction(ready, undefined, {
      polling: 'raf',
      timeout: 30_000,
    });
    const ms = (await handle.jsonValue()) as number;
    const waterfall = (await page.evaluate(READ_WATERFALL)) as Waterfall;
    return { ms, bytes, waterfall };
  } finally {
    await context.close();
  }
}

function printWaterfall(
  title: string,
  { ms, bytes, waterfall }: { ms: number; bytes: number; waterfall: Waterfall },
) {
  console.log(`\n  ${title}: ready at ${fmt(ms)} ms, ${fmt(bytes / 1000, 1)} kB transferred`);
  const rows = [
    ...waterfall.resources.map((r) => ({
      start: r.start,
      text: `${fmt(r.start).padStart(6)} -> ${fmt(r.end).padStart(6)} ms  ${fmt(r.end - r.start).padStart(5)} ms  ${fmt(r.bytes / 1024, 1).padStart(7)} KiB  ${r.name}`,
    })),
    ...waterfall.longTasks.map((t) => ({
      start: t.start,
      text: `${fmt(t.start).padStart(6)} -> ${fmt(t.start + t.duration).padStart(6)} ms  ${fmt(t.duration).padStart(5)} ms  main thread busy (long task)`,
    })),
  ].sort((a, b) => a.start - b.start);
  for (const r of rows) console.log(`    ${r.text}`);
}

/** Each read the pages make, timed alone from here (a slow one is named, not hidden). */
async function timeReads(url: string, runId: string) {
  const reads = [
    `/api/v1/runs/${runId}`,
    `/api/v1/runs/${runId}/changes`,
    `/api/v1/runs/${runId}/changes/${CHANGE}/propagation?bins=60`,
    `/api/v1/runs/${runId}/changes/${CHANGE}/propagation?bins=60&scale=log`,
    `/api/v1/runs/${runId}/changes/${CHANGE}/tail?limit=20`,
    `/api/v1/runs/${runId}/timeline?points=1000`,
    `/api/v1/runs/${runId}/results`,
  ];
  console.log('\n  reads of one run, one at a time (60 s at most each)');
  for (const path of reads) {
    const t0 = performance.now();
    let outcome: string;
    try {
      const r = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(60_000) });
      const bytes = (await r.arrayBuffer()).byteLength;
      outcome = `${r.status}, ${fmt(bytes / 1024, 1)} KiB`;
    } catch (error) {
      outcome = (error as Error).name === 'TimeoutError' ? 'NO ANSWER in 60 s' : String(error);
    }
    console.log(`    ${fmt(performance.now() - t0).padStart(6)} ms  ${path}  (${outcome})`);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * Postgres notices a client that went away (a page closed mid-read, the API stopped) only when
 * it next writes to it; checking every second ends such reads instead of leaving them running
 * for the next sample, or for whoever uses the database after the bench.
 */
function checkingClients(url: string): string {
  const u = new URL(url);
  const options = u.searchParams.get('options');
  u.searchParams.set(
    'options',
    `${options ? `${options} ` : ''}-c client_connection_check_interval=1000`,
  );
  return u.toString();
}

async function main() {
  const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'meshbench-bench-'));
  const api = await startApi(
    process.env.DATABASE_URL
      ? { DATABASE_URL: checkingClients(process.env.DATABASE_URL) }
      : { MESHBENCH_DATA_DIR: dataDir as string },
  );
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const started = performance.now();
    const ids: string[] = [];
    for (const [i, mesh] of MESHES.entries()) ids.push(await postRun(api.url, mesh, i));
    for (const id of ids) {
      const p = await json(schema.propagation)(
        await fetch(`${api.url}/api/v1/runs/${id}/changes/${CHANGE}/propagation`),
      );
      if (p.count !== N) throw new Error(`run ${id} has ${p.count} of ${N} observations`);
    }
    const loadS = (performance.now() - started) / 1000;

    // Page-side checks, as expressions (this package has no DOM types): the run page's
    // percentile table and histogram bars; the compare page's table of differences and every
    // run's histogram bars.
    const runReady = `document.querySelector('[data-testid="percentile-table"]') &&
      document.querySelector('[data-testid="histogram-chart"] .recharts-bar-rectangle')
        ? performance.now() : false`;
    const compareReady = `document.querySelector('[data-testid="delta-table"]') &&
      document.querySelectorAll('[data-testid="histogram-multiple"]').length === 3 &&
      [...document.querySelectorAll('[data-testid="histogram-multiple"]')].every((m) =>
        m.querySelector('.recharts-bar-rectangle'))
        ? performance.now() : false`;

    const runUrl = `${api.url}/runs/${ids[0]}`;
    const compareUrl = `${api.url}/compare?runs=${ids.join(',')}`;
    // One navigation each first: the server's first read of a change and V8's warm-up are
    // not what a person opening a finished run waits for.
    await timeToReady(browser, runUrl, runReady);
    await timeToReady(browser, compareUrl, compareReady);
    const runTimes: number[] = [];
    const compareTimes: number[] = [];
    const runBytes: number[] = [];
    const compareBytes: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const run = await timeToReady(browser, runUrl, runReady);
      runTimes.push(run.ms);
      runBytes.push(run.bytes);
      const compare = await timeToReady(browser, compareUrl, compareReady);
      compareTimes.push(compare.ms);
      compareBytes.push(compare.bytes);
    }
    const runMs = median(runTimes);
    const compareMs = median(compareTimes);
    const runKb = Math.max(...runBytes) / 1000;
    const compareKb = Math.max(...compareBytes) / 1000;
    const verdict = (value: number, budget: number) =>
      value <= budget ? 'within budget' : 'OVER BUDGET';
    console.log('\nbench/page-load');
    // Others share the machine: the load beside the figures says how far to trust them.
    console.log(
      `  load average                  ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    console.log(
      `  database                      ${process.env.DATABASE_URL ? 'postgres (DATABASE_URL)' : 'embedded'}`,
    );
    if (BLOCK_TAIL) console.log('  tail requests                 blocked (--block-tail)');
    console.log(
      `  runs                          3 x ${fmt(N)} observations (posted and checked in ${fmt(loadS, 1)} s)`,
    );
    console.log(
      `  run page      -> table + histogram  ${fmt(runMs)} ms median of ${SAMPLES} (${runTimes.map((t) => fmt(t)).join(', ')}) budget <= ${fmt(RUN_BUDGET_MS)} ms: ${verdict(runMs, RUN_BUDGET_MS)}`,
    );
    console.log(
      `  compare of 3  -> table + histograms ${fmt(compareMs)} ms median of ${SAMPLES} (${compareTimes.map((t) => fmt(t)).join(', ')}) budget <= ${fmt(COMPARE_BUDGET_MS)} ms: ${verdict(compareMs, COMPARE_BUDGET_MS)}`,
    );
    console.log(
      `  run page      transferred       ${fmt(runKb, 1)} kB (most of ${SAMPLES}) budget <= ${fmt(RUN_BUDGET_BYTES / 1000)} kB: ${verdict(runKb * 1000, RUN_BUDGET_BYTES)}`,
    );
    console.log(`  compare of 3  transferred       ${fmt(compareKb, 1)} kB (most of ${SAMPLES})`);
    printWaterfall('run page, one more navigation', await timeToReady(browser, runUrl, runReady));
    printWaterfall(
      'compare page, one more navigation',
      await timeToReady(browser, compareUrl, compareReady),
    );
    await timeReads(api.url, ids[0] as string);
    if (runMs > RUN_BUDGET_MS || compareMs > COMPARE_BUDGET_MS || runKb * 1000 > RUN_BUDGET_BYTES)
      process.exitCode = 1;
  } finally {
    await browser.close();
    await api.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
