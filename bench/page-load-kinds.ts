// bench/page-load-kinds: every kind of page the demo shows, opened cold in headless Chromium:
// the run page of a churn run (20 changes) and of a stages run (three generators' interval
// logs), the runs list, the compare page of three runs, a report of them and the API docs
// page. Per kind:
//   - bytes transferred until the page was quiet (Chromium's encodedDataLength: compressed
//     bodies and headers, every request the page made), budget <= 300 kB;
//   - first meaningful paint: navigation start to the first frame showing what a person came
//     for (the run's summary sentence, the list's rows, the table of differences, the
//     report's runs), budget <= 1 s.
// Beside them, the same figures of a static hello page served by this process (a baseline
// measured in the same run, interleaved with the others: the machine is shared).
// Usage: tsx page-load-kinds.ts [--samples N]
// (DATABASE_URL: that Postgres; unset: the embedded database in a temporary directory)

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiClient,
  churnRun,
  endpointPropagationRun,
  istioChurnScenario,
  loadStages,
  propagationScenarios,
} from '@meshbench/api/demo';
import { type Browser, chromium } from 'playwright-core';
import { AUTH, BENCH_TOKEN, startApi } from './lib/server.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SAMPLES = arg('samples', 5);
const BYTES_BUDGET = 300_000;
const PAINT_BUDGET_MS = 1000;
/** The page is quiet when no request has been open or finished for this long. */
const QUIET_MS = 1000;

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

interface Kind {
  name: string;
  url: string;
  /** An expression true in the first frame that shows the page's point (this package has no DOM types). */
  ready: string;
}

const shown = (selector: string) =>
  `(() => { const e = document.querySelector(${JSON.stringify(selector)}); return !!e && e.getBoundingClientRect().height > 0; })()`;

/** One cold visit: the paint time and the bytes until the page was quiet. */
async function visit(browser: Browser, kind: Kind): Promise<{ paintMs: number; bytes: number }> {
  const context = await browser.newContext({
    viewport: { width: 1400, height: 900 },
    // The pages' CSP forbids eval; the bench's probes (string predicates) need it.
    bypassCSP: true,
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    let bytes = 0;
    let open = 0;
    let last = performance.now();
    cdp.on('Network.requestWillBeSent', () => {
      open++;
      last = performance.now();
    });
    const done = () => {
      open = Math.max(0, open - 1);
      last = performance.now();
    };
    cdp.on('Network.loadingFinished', (e) => {
      bytes += e.encodedDataLength;
      done();
    });
    cdp.on('Network.loadingFailed', done);
    await cdp.send('Network.enable');
    await page.goto(kind.url, { waitUntil: 'commit' });
    const handle = await page
      .waitForFunction(`(${kind.ready}) ? performance.now() : false`, undefined, {
        polling: 'raf',
        timeout: 60_000,
      })
      .catch((error: Error) => {
        throw new Error(`${kind.name}: not ready in 60 s (${error.message})`);
      });
    const paintMs = (await handle.jsonValue()) as number;
    // Then until nothing has moved on the network for QUIET_MS (a live page would never be).
    const deadline = performance.now() + 30_000;
    while (performance.now() < deadline && (open > 0 || performance.now() - last < QUIET_MS))
      await new Promise((r) => setTimeout(r, 100));
    return { paintMs, bytes };
  } finally {
    await context.close();
  }
}

async function main() {
  const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'meshbench-bench-'));
  // PORT: the API's port (unset: a free one).
  const api = await startApi({
    PORT: process.env.PORT,
    ...(process.env.DATABASE_URL ? {} : { MESHBENCH_DATA_DIR: dataDir as string }),
  });
  // The baseline: a static page of one heading, from a server in this process.
  const hello = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>hello</title><h1>hello</h1>');
  });
  await new Promise<void>((resolve) => hello.listen(0, '127.0.0.1', resolve));
  const helloPort = (hello.address() as { port: number }).port;
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
    // The demo's own runs, posted through the public API as `npm start` posts them.
    const client = apiClient(api.url, BENCH_TOKEN);
    const label = { source: 'bench-page-load-kinds' };
    const churn = churnRun(istioChurnScenario);
    const { finishedAt: churnEnd, ...churnStart } = churn.run;
    const churned = await client.createRun({
      ...churnStart,
      labels: { ...churnStart.labels, ...label },
    });
    await client.postEvents(churned.id, churn.events, 'bench-churn');
    await client.finishRun(churned.id, churnEnd);
    const stages = await loadStages({ baseUrl: api.url, token: BENCH_TOKEN });
    const propagation: string[] = [];
    for (const scenario of propagationScenarios) {
      const { run, events } = endpointPropagationRun(scenario);
      const { finishedAt, ...body } = run;
      const created = await client.createRun({ ...body, labels: { ...body.labels, ...label } });
      await client.postEvents(created.id, events, `bench-${scenario.seed}`);
      await client.finishRun(created.id, finishedAt);
      propagation.push(created.id);
    }
    const res = await fetch(`${api.url}/api/v1/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({ runs: propagation, title: 'page-load-kinds' }),
    });
    if (res.status !== 201) throw new Error(`report: ${res.status} ${await res.text()}`);
    const { slug } = (await res.json()) as { slug: string };

    const summary = shown('[data-testid="run-summary"]');
    const kinds: Kind[] = [
      {
        name: 'static hello page (baseline)',
        url: `http://127.0.0.1:${helloPort}/`,
        ready: shown('h1'),
      },
      {
        name: 'run page, churn (20 changes)',
        url: `${api.url}/runs/${churned.id}`,
        ready: `${summary} && ${shown('[data-testid="churn-section"] table')}`,
      },
      {
        name: 'run page, stages',
        url: `${api.url}/runs/${stages.id}`,
        ready: `${summary} && ${shown('[data-testid="stages-section"] .recharts-surface')}`,
      },
      { name: 'runs list', url: `${api.url}/`, ready: shown('main table tbody tr') },
      {
        name: 'compare of 3',
        url: `${api.url}/compare?runs=${propagation.join(',')}`,
        ready: `${summary} && ${shown('[data-testid="delta-table"]')}`,
      },
      {
        name: 'report of 3',
        url: `${api.url}/r/${slug}`,
        ready: `${summary} && ${shown('[data-testid="report-run"]')}`,
      },
      {
        // The docs page: every operation, written from the OpenAPI document (swagger-ui, for
        // trying requests, is at /docs/try).
        name: 'API docs (/docs)',
        url: `${api.url}/docs`,
        ready: shown('.op'),
      },
    ];
    // One visit each first (the server's first reads, V8's warm-up), then SAMPLES rounds,
    // each round every kind in turn, so that a busy moment of the machine hits them alike.
    for (const kind of kinds) await visit(browser, kind);
    const paints = kinds.map(() => [] as number[]);
    const bytes = kinds.map(() => [] as number[]);
    for (let i = 0; i < SAMPLES; i++) {
      for (const [k, kind] of kinds.entries()) {
        const v = await visit(browser, kind);
        paints[k]?.push(v.paintMs);
        bytes[k]?.push(v.bytes);
      }
    }
    const basePaint = median(paints[0] as number[]);
    const baseBytes = median(bytes[0] as number[]);
    console.log('\nbench/page-load-kinds');
    console.log(
      `  load average   ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    console.log(
      `  database       ${process.env.DATABASE_URL ? 'postgres (DATABASE_URL)' : 'embedded'}; cold visits at 1,400 px, medians of ${SAMPLES}, interleaved`,
    );
    console.log(
      `  ${'page'.padEnd(30)} ${'first meaningful paint'.padStart(24)} ${'x hello'.padStart(8)}   ${'transferred'.padStart(12)} ${'x hello'.padStart(8)}   budgets (${fmt(PAINT_BUDGET_MS)} ms, ${fmt(BYTES_BUDGET / 1000)} kB)`,
    );
    let over = false;
    for (const [k, kind] of kinds.entries()) {
      const p = median(paints[k] as number[]);
      const b = median(bytes[k] as number[]);
      const baseline = k === 0;
      const ok = baseline || (p <= PAINT_BUDGET_MS && b <= BYTES_BUDGET);
      if (!ok) over = true;
      console.log(
        `  ${kind.name.padEnd(30)} ${`${fmt(p)} ms`.padStart(24)} ${fmt(p / basePaint, 1).padStart(8)}   ${`${fmt(b / 1000, 1)} kB`.padStart(12)} ${fmt(b / baseBytes, 1).padStart(8)}   ${baseline ? '' : `${p <= PAINT_BUDGET_MS ? 'paint ok' : 'PAINT OVER'}, ${b <= BYTES_BUDGET ? 'bytes ok' : 'BYTES OVER'}`}`,
      );
      console.log(
        `  ${''.padEnd(30)} paints ${(paints[k] as number[]).map((x) => fmt(x)).join(', ')} ms; bytes ${(bytes[k] as number[]).map((x) => fmt(x / 1000, 1)).join(', ')} kB`,
      );
    }
    if (over) process.exitCode = 1;
  } finally {
    await browser.close();
    hello.close();
    await api.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
