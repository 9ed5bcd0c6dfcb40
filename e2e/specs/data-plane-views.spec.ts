// The data-plane views end to end, on runs shaped like the demo's (Fortio files at 1,000 RPS
// and an Istio perf-CSV rate sweep at 16 connections): the axis switch kept in the URL, any
// percentile via ?percentiles, errors as a rate, and the compare page's one chart per mode
// with two runs of one mesh in two colours.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { apiClient, dataPlaneMeshes, dataPlaneRun, fortioResult } from '@meshbench/api/demo';
import type { Run } from '@meshbench/schema';
import { expect, type Locator, type Page, test } from '@playwright/test';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;
const mesh = dataPlaneMeshes.find((m) => m.name === 'istio') ?? dataPlaneMeshes[0]!;

const tickTexts = (chart: Locator) =>
  chart.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');

/**
 * The run page's data-plane section, once its results are in: the first read of a new run's
 * results on a loaded machine can take longer than an assertion's default wait.
 */
async function openRun(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByTestId('load-report')).toBeVisible({ timeout: 60_000 });
}

/** A run of the demo's shape: baseline and both at 2 and 16 connections, a rate sweep at 16. */
async function postRun(baseURL: string, label: string) {
  const api = apiClient(baseURL, process.env.MESHBENCH_ADMIN_TOKEN);
  const { run: generated, start } = dataPlaneRun(mesh);
  const { finishedAt, ...body } = generated;
  body.labels = { ...body.labels, source: 'e2e', e2e: `${label}-${randomUUID()}` };
  const run: Run = await api.createRun(body);
  const files: Record<string, string> = {};
  let minute = 0;
  const at = () => new Date(start.getTime() + minute++ * 60_000);
  for (const mode of ['baseline', 'both'] as const) {
    for (const connections of [2, 16]) {
      const file = fortioResult(mesh, mode, connections, at());
      files[`${mode}-${connections}`] = file;
      await api.postResults(run.id, file, 'fortio');
    }
  }
  const csv = [
    'StartTime,ActualDuration,Labels,NumThreads,ActualQPS,p50,p90,p99,cpu_mili_avg_istio_proxy_fortioclient,cpu_mili_avg_istio_proxy_fortioserver,mem_Mi_avg_istio_proxy_fortioclient,mem_Mi_avg_istio_proxy_fortioserver',
    `${at().toISOString()},240,istio_qps_500_c_16_1024_both,16,500,1900,3100,6500,250,210,63,57`,
    `${at().toISOString()},240,istio_qps_2000_c_16_1024_both,16,2000,2300,3600,7600,960,816,67,59.8`,
    `${at().toISOString()},240,istio_qps_4000_c_16_1024_both,16,4000,2900,4400,9100,1900,1600,70,62`,
  ].join('\n');
  await api.postResults(run.id, `${csv}\n`, 'istio-csv');
  await api.finishRun(run.id, finishedAt);
  return { run, files };
}

test.beforeAll(() => {
  mkdirSync(artifacts, { recursive: true });
});

test('latency switches between connections and RPS in one click, kept in the URL', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const { run } = await postRun(baseURL as string, 'axis');
  await openRun(page, `/runs/${run.id}`);
  const report = page.getByTestId('load-report');
  const latency = page.getByTestId('latency');
  // Opens along connections at the rate holding the sweep: 2 and 16 connections.
  await expect(report).toHaveAttribute('data-axis', 'connections');
  await expect(tickTexts(latency.getByTestId('latency-chart'))).toHaveText(['2', '16']);

  await page.getByTestId('load-axis-rps').click();
  await expect(page).toHaveURL(/[?&]axis=rps/);
  await expect(report).toHaveAttribute('data-axis', 'rps');
  await expect(latency.getByRole('heading')).toHaveText('P90 latency vs RPS');
  // At 16 connections: the Fortio points at ~1,000 RPS and the CSV's 500, 2,000, 4,000.
  await expect(page.getByTestId('load-slice')).toHaveValue('connections:16');
  await expect(latency.locator('[data-testid="latency-row"][data-mode="both"]')).toHaveCount(4);
  await expect(latency.locator('[data-testid="latency-row"][data-mode="baseline"]')).toHaveCount(1);
  await expect(tickTexts(latency.getByTestId('latency-chart'))).toHaveText([
    '0',
    '1,000',
    '2,000',
    '3,000',
    '4,000',
  ]);
  await page.screenshot({ path: artifact('data-plane-rps.png'), fullPage: true });

  // A link keeps the axis.
  await page.reload();
  await expect(page.getByTestId('load-report')).toHaveAttribute('data-axis', 'rps');
  await page.getByTestId('load-axis-connections').click();
  await expect(page).toHaveURL(/[?&]axis=connections/);
  await expect(tickTexts(latency.getByTestId('latency-chart'))).toHaveText(['2', '16']);
});

test('any percentile via ?percentiles, marked as the source gave it', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const { run, files } = await postRun(baseURL as string, 'percentiles');
  await openRun(page, `/runs/${run.id}?percentiles=50,99.9&percentile=99.9`);
  const latency = page.getByTestId('latency');
  await expect(latency.getByRole('heading')).toHaveText('P99.9 latency vs connections');
  await expect(page.getByTestId('load-percentile-p99-9')).toHaveAttribute('aria-pressed', 'true');
  await expect(latency.getByTestId('latency-table').locator('th')).toContainText(['P50', 'P99.9']);
  // Fortio's own P99.9 (seconds in the file), an estimate: "~" and a tooltip.
  const json = JSON.parse(files['both-16'] as string) as {
    DurationHistogram: { Percentiles: { Percentile: number; Value: number }[] };
  };
  const p999 = json.DurationHistogram.Percentiles.find((p) => p.Percentile === 99.9);
  expect(p999).toBeDefined();
  const row = latency.locator(
    '[data-testid="latency-row"][data-mode="both"][data-connections="16"][data-x="16"]',
  );
  await expect(row.locator('[data-certainty="estimate"]').last()).toHaveAttribute(
    'title',
    /reported/,
  );
});

test('errors are drawn as a rate of the requests, the counts in the table', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const { run, files } = await postRun(baseURL as string, 'errors');
  await openRun(page, `/runs/${run.id}`);
  const errors = page.getByTestId('errors');
  await expect(errors.getByRole('heading')).toHaveText('Error rate');
  await expect(errors.locator('[data-testid="errors-row"]')).toHaveCount(4);
  // From the Fortio file itself: the non-200 codes over the histogram's count.
  for (const key of ['baseline-2', 'baseline-16', 'both-2', 'both-16']) {
    const json = JSON.parse(files[key] as string) as {
      DurationHistogram: { Count: number };
      RetCodes: Record<string, number>;
    };
    const failed = Object.entries(json.RetCodes)
      .filter(([code]) => code !== '200')
      .reduce((sum, [, n]) => sum + n, 0);
    const [mode, connections] = key.split('-') as [string, string];
    const row = errors
      .locator(`[data-testid="errors-row"][data-mode="${mode}"]`)
      .filter({ has: page.locator(`td:nth-child(2):text-is("${connections}")`) });
    const cells = (await row.locator('td').allTextContents()).map((t) => t.trim());
    // Mode, connections, requests, errors, error rate, by code.
    expect(cells[3]).toBe(failed.toLocaleString('en-US'));
    const percent = (failed / json.DurationHistogram.Count) * 100;
    expect(Number.parseFloat(cells[4] as string)).toBeCloseTo(percent, 3);
    expect(cells[4]).toMatch(/ %$/);
  }
  // The chart draws the rates: a line per mode, the axis in %.
  await expect(errors.getByTestId('errors-chart').locator('.recharts-line')).toHaveCount(2);
  await expect(
    errors.getByTestId('errors-chart').locator('.recharts-yAxis-tick-labels').first(),
  ).toContainText('%');
});

test('compare draws one chart per mode, two runs of one mesh in two colours', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const a = await postRun(baseURL as string, 'compare-a');
  const b = await postRun(baseURL as string, 'compare-b');
  await page.goto(`/compare?runs=${a.run.id},${b.run.id}`);
  const multiples = page.getByTestId('latency-multiples');
  await expect(multiples.getByTestId('mode-multiple')).toHaveCount(2);
  await expect(multiples.getByTestId('mode-multiple').locator('figcaption')).toHaveText([
    'baseline',
    'both',
  ]);
  // Each mode's chart: one line per run, in two different colours.
  const both = multiples.locator('[data-testid="mode-multiple"][data-mode="both"]');
  const lines = both.locator('.recharts-line path.recharts-line-curve');
  await expect(lines).toHaveCount(2);
  const strokes = await lines.evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke')));
  expect(new Set(strokes).size).toBe(2);
  // The numbers behind them: per mode and connections, P90 and error rate, against run one.
  const table = page.getByTestId('load-delta-table');
  await expect(table.locator('[data-testid="load-delta-row"]')).toHaveCount(8);
  await expect(
    table.locator('[data-testid="load-delta-row"][data-mode="both"][data-metric="P90"]').first(),
  ).toContainText('2 connections');
  // The axis switch works here too.
  await page.getByTestId('load-axis-rps').click();
  await expect(page.getByTestId('load-overlay')).toHaveAttribute('data-axis', 'rps');
  await page.getByTestId('load-overlay').screenshot({ path: artifact('compare-data-plane.png') });
});
