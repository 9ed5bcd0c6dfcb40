// The run page's sections end to end: a data-plane run whose Fortio file is uploaded through
// the page's form and shows up on the latency charts with the file's own numbers, and a
// propagation run whose tail panel and drill-down agree with GET /tail.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiClient,
  consulScenario,
  dataPlaneMeshes,
  dataPlaneRun,
  endpointPropagationRun,
  fortioResult,
} from '@meshbench/api/demo';
import {
  type Run,
  type StoredLoadResult,
  storedLoadResult,
  tail as tailAnswer,
} from '@meshbench/schema';
import { formatCount, formatDurationDelta, formatDurationMs } from '@meshbench/web/format';
import { expect, type Locator, test } from '@playwright/test';
import * as config from '../playwright.config.ts';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

/**
 * A token that may write: the suite's admin token (given to the server by the config), else
 * one from the environment, else the embedded server's local token.
 */
function writeToken(): string | undefined {
  const configured = (config as { E2E_TOKEN?: string }).E2E_TOKEN;
  if (configured) return configured;
  if (process.env.MESHBENCH_ADMIN_TOKEN) return process.env.MESHBENCH_ADMIN_TOKEN;
  const file = process.env.E2E_DATA_DIR ? join(process.env.E2E_DATA_DIR, 'token') : '';
  return file && existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

const cellTexts = async (row: Locator) =>
  (await row.locator('td').allTextContents()).map((t) => t.trim());

/** Fortio writes durations in seconds; the page shows milliseconds. */
function fortioPercentileMs(file: string, p: number): number {
  const json = JSON.parse(file) as {
    DurationHistogram: { Percentiles: { Percentile: number; Value: number }[] };
  };
  const found = json.DurationHistogram.Percentiles.find((x) => x.Percentile === p);
  if (!found) throw new Error(`the file has no P${p}`);
  return found.Value * 1000;
}

test.beforeAll(() => {
  mkdirSync(artifacts, { recursive: true });
});

test('a Fortio file uploaded through the run page shows on the latency charts', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const mesh = dataPlaneMeshes.find((m) => m.name === 'istio') ?? dataPlaneMeshes[0]!;
  const tag = randomUUID();
  const { run: generated, start } = dataPlaneRun(mesh);
  const { finishedAt, ...body } = generated;
  body.labels = { ...body.labels, source: 'e2e', e2e: tag };
  const api = apiClient(baseURL as string, writeToken());
  const run: Run = await api.createRun(body);

  // Everything of the Istio guide's sweep but one point, posted as a runner would...
  let minute = 0;
  const at = () => new Date(start.getTime() + minute++ * 60_000);
  for (const mode of ['baseline', 'serveronly', 'both'] as const) {
    for (const connections of [2, 4, 8, 16, 32, 64]) {
      if (mode === 'both' && connections === 64) continue;
      await api.postResults(run.id, fortioResult(mesh, mode, connections, at()), 'fortio');
    }
  }
  // ...and a CPU sweep from Istio's perf CSV (latencies in µs, CPU in millicores).
  const csv = [
    'StartTime,ActualDuration,Labels,NumThreads,ActualQPS,p50,p90,p99,cpu_mili_avg_istio_proxy_fortioclient,cpu_mili_avg_istio_proxy_fortioserver,mem_Mi_avg_istio_proxy_fortioclient,mem_Mi_avg_istio_proxy_fortioserver',
    `${at().toISOString()},240,istio_qps_500_c_16_1024_both,16,500,1900,3100,6500,250,210,63,57`,
    `${at().toISOString()},240,istio_qps_1000_c_16_1024_both,16,1000,2100,3300,7000,500,425,64.5,57.8`,
    `${at().toISOString()},240,istio_qps_2000_c_16_1024_both,16,2000,2300,3600,7600,960,816,67,59.8`,
  ].join('\n');
  expect((await api.postResults(run.id, `${csv}\n`, 'istio-csv')).imported).toBe(3);
  await api.finishRun(run.id, finishedAt);

  // The last point is the file a person uploads through the form.
  const fortio = fortioResult(mesh, 'both', 64, at());
  const dir = mkdtempSync(join(tmpdir(), 'meshbench-upload-'));
  const file = join(dir, 'istio_qps_1000_c_64_1024_both.json');
  writeFileSync(file, fortio);

  await page.goto(`/runs/${run.id}`);
  const latency = page.getByTestId('latency');
  const uploadedRow = latency.locator(
    '[data-testid="latency-row"][data-mode="both"][data-connections="64"]',
  );
  await expect(latency.locator('[data-testid="latency-row"]')).toHaveCount(17);
  await expect(uploadedRow).toHaveCount(0);

  // Reading is not writing: the form is behind the run's "Add results" action.
  await expect(page.getByTestId('upload-form')).toHaveCount(0);
  await page.getByTestId('add-results').click();
  const form = page.getByTestId('upload-form');
  await form.getByTestId('upload-file').setInputFiles(file);
  await expect(form.getByTestId('upload-format')).toHaveValue('auto');
  const token = writeToken();
  if (token) await form.getByTestId('upload-token').fill(token);
  await form.getByTestId('upload-submit').click();
  await expect(form.getByTestId('upload-result')).toContainText('Imported 1 point (fortio)');

  // The new point, refreshed without a reload, with the file's own percentiles.
  await expect(latency.locator('[data-testid="latency-row"]')).toHaveCount(18);
  await expect(uploadedRow).toHaveCount(1);
  const p50 = fortioPercentileMs(fortio, 50);
  const p90 = fortioPercentileMs(fortio, 90);
  const p99 = fortioPercentileMs(fortio, 99);
  // Mode, connections, target RPS, achieved RPS, P50, P90, P99, requests.
  const cells = await cellTexts(uploadedRow);
  expect(cells.slice(0, 3)).toEqual(['both', '64', '1,000']);
  // Fortio computes its percentiles itself (interpolating in its buckets): shown as
  // estimates, "~" before the value, with the method on hover.
  expect(cells.slice(4, 8)).toEqual([
    `~${formatDurationMs(p50)}`,
    `~${formatDurationMs(p90)}`,
    `~${formatDurationMs(p99)}`,
    formatCount(30_000),
  ]);
  await expect(uploadedRow.locator('[data-certainty="estimate"]').first()).toHaveAttribute(
    'title',
    /reported .*no bound known/,
  );

  // The API stored the same numbers the page shows.
  const stored = storedLoadResult
    .array()
    .parse(await (await request.get(`/api/v1/runs/${run.id}/results`)).json());
  const point = stored.find((r) => r.mode === 'both' && r.connections === 64);
  const base = stored.find((r) => r.mode === 'baseline' && r.connections === 64);
  const ms = (r: StoredLoadResult | undefined, p: number) =>
    r?.percentiles.find((x) => x.p === p)?.ms as number;
  expect(ms(point, 90)).toBeCloseTo(p90, 9);

  // On the chart: three lines (baseline, serveronly, both), and both now reaches 64.
  const chart = latency.getByTestId('latency-chart');
  await expect(chart.locator('.recharts-line')).toHaveCount(3);
  await expect(latency.getByTestId('series-key')).toContainText('both');
  await expect(
    chart.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value'),
  ).toHaveText(['2', '4', '8', '16', '32', '64']);

  // Added latency over baseline at 64 connections: both's P90 minus baseline's P90.
  const added = page
    .getByTestId('added-latency')
    .locator('[data-testid="added-row"][data-mode="both"][data-connections="64"]');
  const addedCells = await cellTexts(added);
  // Reported by Fortio, so estimates, and so the difference of two of them.
  expect(addedCells.slice(2, 5)).toEqual([
    `~${formatDurationMs(ms(point, 90))}`,
    `~${formatDurationMs(ms(base, 90))}`,
    `~${formatDurationDelta(ms(point, 90) - ms(base, 90))}`,
  ]);

  // P99 redraws the latency chart from the same points.
  await page.getByTestId('load-percentile-p99').click();
  await expect(latency.getByRole('heading')).toHaveText('P99 latency vs connections');

  // The CPU sweep from the CSV: client and server lines, three points each.
  const cpu = page.getByTestId('proxy-cpu');
  await expect(cpu.getByTestId('series-key')).toContainText('client');
  await expect(cpu.locator('[data-testid="cpu-row"]')).toHaveCount(3);
  await expect(cpu.locator('[data-testid="cpu-row"][data-rps="1000"] td').nth(3)).toHaveText('0.5');

  await page.getByTestId('load-percentile-p90').click();
  await page.screenshot({ path: artifact('run-data-plane.png'), fullPage: true });

  // A file the API cannot read: its own message, nothing stored.
  const bad = join(dir, 'truncated.json');
  writeFileSync(bad, fortio.slice(0, 200));
  await form.getByTestId('upload-file').setInputFiles(bad);
  await form.getByTestId('upload-format').selectOption('fortio');
  await form.getByTestId('upload-submit').click();
  await expect(form.getByRole('alert')).not.toBeEmpty();
  await expect(latency.locator('[data-testid="latency-row"]')).toHaveCount(18);
});

test('the tail panel and its drill-down agree with GET /tail', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const tag = randomUUID();
  const t0 = new Date(Date.now() - 5 * 60_000).toISOString();
  const generated = endpointPropagationRun({ ...consulScenario, t0 });
  const { finishedAt, ...body } = generated.run;
  body.labels = { ...body.labels, source: 'e2e', e2e: tag };
  const api = apiClient(baseURL as string, writeToken());
  const created = await api.createRun(body);
  await api.postEvents(created.id, generated.events, `e2e-tail-${tag}`);
  const run = await api.finishRun(created.id, finishedAt);
  const change = generated.events.find((e) => e.type === 'change');
  if (change?.type !== 'change') throw new Error('the generator made no change');

  const tailOf = async (query: string) => {
    const response = await request.get(
      `/api/v1/runs/${run.id}/changes/${change.id}/tail?${query}&limit=50`,
    );
    expect(response.ok()).toBe(true);
    return tailAnswer.parse(await response.json());
  };
  const tail = await tailOf('thresholdMs=1000');
  expect(tail.causes.length).toBeGreaterThan(1);
  expect(tail.neverConverged).toBe(consulScenario.neverApply);

  await page.goto(`/runs/${run.id}`);
  const panel = page.getByTestId('tail-panel');
  const rows = panel.getByTestId('tail-cause-row');
  await expect(rows).toHaveCount(tail.causes.length);
  const top = tail.causes[0]!;
  await expect(rows.first().getByTestId('tail-cause-name')).toHaveText(top.cause);
  await expect(rows.first().getByTestId('tail-cause-count')).toHaveText(formatCount(top.count));
  // never-converged is its own row (and bar), with the count the API gives.
  await expect(
    panel.locator('[data-cause="never-converged"] [data-testid="tail-cause-count"]'),
  ).toHaveText(formatCount(tail.neverConverged));
  await expect(panel.getByTestId('tail-chart').locator('.recharts-bar-rectangle')).toHaveCount(
    tail.causes.length,
  );

  // The drill-down: the slowest proxies, slowest first, each with its cause.
  await panel.getByTestId('tail-drilldown-toggle').click();
  const slowest = panel.getByTestId('tail-slowest-row');
  await expect(slowest).toHaveCount(tail.slowest.length);
  const first = tail.slowest[0]!;
  const firstCells = await cellTexts(slowest.first());
  expect(firstCells.slice(0, 4)).toEqual([
    first.proxy,
    first.node ?? '—',
    formatDurationMs(first.ms),
    first.cause,
  ]);
  const explained = tail.slowest.findIndex((s) => s.incident);
  if (explained >= 0) {
    const incident = tail.slowest[explained]!.incident!;
    await expect(slowest.nth(explained).locator('td').nth(4)).toContainText(incident.kind);
  }
  await page.screenshot({ path: artifact('run-propagation.png'), fullPage: true });

  // "Slower than P99": a new request, a new top cause row.
  const p99 = await tailOf('thresholdP=99');
  await panel.getByTestId('tail-threshold-p99').click();
  await expect(panel.getByTestId('tail-summary')).toContainText('slower than P99');
  await expect(rows.first().getByTestId('tail-cause-name')).toHaveText(p99.causes[0]!.cause);
  await expect(rows.first().getByTestId('tail-cause-count')).toHaveText(
    formatCount(p99.causes[0]!.count),
  );

  // Exports: the tail and propagation tables as CSV, the raw events as NDJSON.
  const tailCsv = await request.get(
    (await panel.getByTestId('tail-csv').getAttribute('href')) as string,
  );
  expect(tailCsv.headers()['content-type']).toMatch(/^text\/csv/);
  // Each row says which latencies it was counted on, as GET /tail does (corrected here: the
  // run has clock reports).
  const tailRows = (await tailCsv.text()).trim().split('\n');
  expect(tailRows[0]).toBe('cause,count,share,p50Ms,p90Ms,p99Ms,clock');
  expect(tailRows.length).toBeGreaterThan(1);
  for (const row of tailRows.slice(1)) expect(row.split(',').at(-1)).toBe(tail.clock);
  const propagationCsv = await request.get(
    (await page.getByTestId('propagation-csv').first().getAttribute('href')) as string,
  );
  expect(propagationCsv.headers()['content-type']).toMatch(/^text\/csv/);
  const eventsHref = (await page.getByTestId('events-ndjson').getAttribute('href')) as string;
  expect(eventsHref).toBe(`/api/v1/runs/${run.id}/events`);
  const events = await request.get(eventsHref);
  expect(events.headers()['content-type']).toMatch(/^application\/x-ndjson/);
  const firstLine = JSON.parse((await events.text()).split('\n')[0] as string) as {
    type: string;
  };
  expect(firstLine.type).toBe('change');

  // The change as a Perfetto trace: a Trace's packets are its field 1, length-delimited.
  const traceHref = (await page
    .getByTestId('perfetto-trace')
    .first()
    .getAttribute('href')) as string;
  expect(traceHref).toBe(
    `/api/v1/runs/${run.id}/changes/${encodeURIComponent(change.id)}/perfetto`,
  );
  const trace = await request.get(traceHref);
  expect(trace.headers()['content-type']).toBe('application/octet-stream');
  expect((await trace.body())[0]).toBe((1 << 3) | 2);
});
