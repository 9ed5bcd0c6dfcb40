// A copied link shows what its sender saw: every toggle, zoom and pick that changes what a
// page shows is set, the URL is opened again (a reload), and the same view must come back.
// Also: the charts' table alternatives open from the keyboard, and the history's meshes are
// named beside their colours.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { apiClient } from '@meshbench/api/demo';
import type { ProbeEvent } from '@meshbench/schema';
import { expect as baseExpect, type Page, test } from '@playwright/test';
import { type DemoPage, postDemoPages } from './demo-pages.ts';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

// The demo's pages are large to read on a busy machine: a minute per wait, four per test.
const expect = baseExpect.configure({ timeout: 60_000 });
test.describe.configure({ timeout: 240_000 });

let pages: DemoPage[] = [];
const path = (name: string) => {
  const p = pages.find((x) => x.name === name);
  if (!p) throw new Error(`no demo page ${name}`);
  return p.path;
};

test.beforeAll(async ({ baseURL }) => {
  mkdirSync(artifacts, { recursive: true });
  pages = await postDemoPages(baseURL as string);
});

/** Reloads the page's own URL, as a person opening a copied link would. */
async function reopen(page: Page) {
  const url = page.url();
  await page.goto('about:blank');
  await page.goto(url);
}

async function expectPressed(page: Page, testIds: string[]) {
  for (const id of testIds)
    await expect(page.getByTestId(id).first()).toHaveAttribute('aria-pressed', 'true');
}

test('propagation run: the histogram and convergence scales survive a reload', async ({ page }) => {
  await page.goto(path('propagation run'));
  // The defaults: the histogram linear, the convergence curve log.
  await expectPressed(page, ['histogram-scale-linear', 'convergence-scale-log']);
  await page.getByTestId('histogram-scale-log').first().click();
  await page.getByTestId('convergence-scale-linear').first().click();
  await expect(page).toHaveURL(/histogramScale=log/);
  await expect(page).toHaveURL(/convergenceScale=linear/);
  await reopen(page);
  await expectPressed(page, ['histogram-scale-log', 'convergence-scale-linear']);
  await expect(page.getByTestId('convergence-chart').first()).toHaveAttribute(
    'data-scale',
    'linear',
  );
});

test('scale-up run: the picked series and the zoom survive a reload; the series tables open by keyboard', async ({
  page,
}) => {
  await page.goto(path('scale-up run'));
  const picker = page.getByTestId('series-picker');
  const boxes = picker.getByRole('checkbox');
  // The demo's scale-up timeline is a large one to read.
  await expect(boxes.first()).toBeVisible({ timeout: 90_000 });
  const before = await boxes.evaluateAll((els) =>
    els.map((e) => (e as unknown as { checked: boolean }).checked),
  );
  expect(before.length).toBeGreaterThan(1);
  // Drop one picked series and add one that was not: one chart at least stays.
  const drop = before.indexOf(true);
  const add = before.indexOf(false);
  expect(drop).toBeGreaterThanOrEqual(0);
  expect(add).toBeGreaterThanOrEqual(0);
  // One at a time, as a person clicks: each waits for the page to show the one before.
  await boxes.nth(add).click();
  await expect(boxes.nth(add)).toBeChecked();
  await boxes.nth(drop).click();
  await expect(boxes.nth(drop)).not.toBeChecked();
  const flipped = before.map((c, i) => (i === add ? true : i === drop ? false : c));
  await expect(page).toHaveURL(/series=/);
  const charts = await page.getByTestId('timeline-series-chart').count();

  // Zoom: a drag across the lifecycle chart, as a person does it.
  const chart = page.getByTestId('timeline-phases-chart');
  // In view first: the mouse acts in the viewport (the summary line and the phase table
  // under the chart moved it down the page).
  await chart.scrollIntoViewIfNeeded();
  const box = await chart.boundingBox();
  if (!box) throw new Error('no lifecycle chart');
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect(page.getByTestId('timeline-reset-zoom')).toBeVisible();
  await expect(page).toHaveURL(/zoom=\d+-\d+/);
  const shownText = await page.locator('.timeline-controls .muted').first().textContent();
  await page.screenshot({ path: artifact('url-state-scale-up.png'), fullPage: true });

  await reopen(page);
  await expect(boxes.first()).toBeVisible({ timeout: 90_000 });
  expect(
    await boxes.evaluateAll((els) =>
      els.map((e) => (e as unknown as { checked: boolean }).checked),
    ),
  ).toEqual(flipped);
  await expect(page.getByTestId('timeline-series-chart')).toHaveCount(charts);
  await expect(page.getByTestId('timeline-reset-zoom')).toBeVisible();
  await expect(page.locator('.timeline-controls .muted').first()).toHaveText(shownText ?? '');

  // Reset zoom takes the parameter away again.
  await page.getByTestId('timeline-reset-zoom').click();
  await expect(page).not.toHaveURL(/zoom=/);

  // Each series chart has its numbers as a table, opened from the keyboard.
  const tables = page.getByTestId('timeline-series-table');
  await expect(tables).toHaveCount(charts);
  const summary = tables.first().locator('summary');
  await summary.focus();
  await expect(summary).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(tables.first()).toHaveAttribute('open', '');
  expect(await tables.first().locator('tbody tr').count()).toBeGreaterThan(0);
});

test('data-plane run: the proxy CPU statistic survives a reload', async ({ page, baseURL }) => {
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const tag = randomUUID().slice(0, 8);
  const t0 = Date.parse('2026-03-02T10:00:00.000Z');
  const run = await api.createRun({
    benchmark: `e2e-url-${tag}`,
    scenario: 'data-plane',
    mesh: { name: 'istio', version: '1.8.2' },
    environment: `e2e-${tag}`,
    labels: { source: 'e2e', e2e: tag },
    startedAt: new Date(t0).toISOString(),
  });
  // Istio's perf CSV with the sidecars' mean and peak CPU (millicores), so both are offered.
  const csv = [
    'StartTime,ActualDuration,Labels,NumThreads,ActualQPS,p50,p90,p99,cpu_mili_avg_istio_proxy_fortioclient,cpu_mili_max_istio_proxy_fortioclient',
    `${new Date(t0 + 60_000).toISOString()},240,istio_qps_500_c_16_1024_both,16,500,1900,3100,6500,250,400`,
    `${new Date(t0 + 120_000).toISOString()},240,istio_qps_1000_c_16_1024_both,16,1000,2100,3300,7000,500,700`,
  ].join('\n');
  expect((await api.postResults(run.id, `${csv}\n`, 'istio-csv')).imported).toBe(2);
  await api.finishRun(run.id, new Date(t0 + 600_000).toISOString());

  await page.goto(`/runs/${run.id}`);
  const cpu = page.getByTestId('proxy-cpu');
  // The points report peaks, so the peak is drawn first; the mean is picked.
  await expectPressed(page, ['cpu-stat-max']);
  await expect(cpu).toContainText('Peak cores');
  await page.getByTestId('cpu-stat-mean').click();
  await expect(page).toHaveURL(/cpuStat=mean/);
  await reopen(page);
  await expectPressed(page, ['cpu-stat-mean']);
  await expect(cpu).toContainText('Mean cores');
});

test('compare: the scales and the picked series survive a reload; the convergence table opens by keyboard', async ({
  page,
}) => {
  await page.goto(path('compare'));
  await expectPressed(page, ['compare-histogram-scale-log', 'compare-convergence-scale-log']);
  await page.getByTestId('compare-histogram-scale-linear').first().click();
  await page.getByTestId('compare-convergence-scale-linear').first().click();
  await reopen(page);
  await expectPressed(page, ['compare-histogram-scale-linear', 'compare-convergence-scale-linear']);
  await expect(page.getByTestId('cdf-overlay-chart').first()).toHaveAttribute(
    'data-scale',
    'linear',
  );

  // The convergence chart's table: named by the chart, one column per run, reached by Tab.
  const table = page.getByTestId('cdf-overlay-table').first();
  const id = await table.getAttribute('id');
  await expect(page.getByTestId('cdf-overlay-chart').first()).toHaveAttribute(
    'aria-describedby',
    id ?? 'missing',
  );
  await page.getByTestId('compare-convergence-scale-linear').first().focus();
  // From the toggle, Tab walks to the table's summary (the chart and legend hold no stop).
  let reached = false;
  for (let i = 0; i < 6 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await table.locator('summary').evaluate((el) => el.matches(':focus'));
  }
  expect(reached).toBe(true);
  await page.keyboard.press('Enter');
  await expect(table).toHaveAttribute('open', '');
  // The demo compares three runs: time plus one column each.
  await expect(table.locator('thead th')).toHaveCount(4);
  await page.screenshot({ path: artifact('url-state-compare.png'), fullPage: true });
});

test('compare: the scale-up series picked survives a reload', async ({ page, baseURL }) => {
  // The scale-up run beside the data-plane run: the picker offers the scale-up run's series.
  const scale = path('scale-up run').split('/').pop() as string;
  const dp = path('data-plane run').split('/').pop() as string;
  await page.goto(`${baseURL}/compare?runs=${scale},${dp}`);
  const picker = page.getByTestId('compare-series-picker');
  await expect(picker).toBeVisible({ timeout: 90_000 });
  const options = await picker
    .locator('option')
    .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
  expect(options.length).toBeGreaterThan(1);
  const other = options.find((o) => o !== options[0]) ?? '';
  const current = await picker.inputValue();
  const target = current === other ? (options[0] as string) : other;
  await picker.selectOption(target);
  await expect(page).toHaveURL(/compareSeries=/);
  await reopen(page);
  await expect(page.getByTestId('compare-series-picker')).toHaveValue(target, { timeout: 90_000 });
});

test('report: the histogram scale survives a reload', async ({ page }) => {
  await page.goto(path('report'));
  await expectPressed(page, ['report-histogram-scale-log']);
  await page.getByTestId('report-histogram-scale-linear').first().click();
  await expect(page).toHaveURL(/reportHistogramScale=linear/);
  await reopen(page);
  await expectPressed(page, ['report-histogram-scale-linear']);
});

test('history: each mesh line is named in the legend, with a pattern of its own', async ({
  page,
}) => {
  await page.goto(path('history'));
  const legend = page.locator('.recharts-legend-wrapper');
  await expect(legend).toBeVisible();
  // The demo's nightly runs are of one mesh; its name is beside its colour.
  await expect(legend).toContainText(/\w/);
  const items = legend.locator('.recharts-legend-item');
  expect(await items.count()).toBeGreaterThan(0);
});

test('churn run: the table order survives a reload', async ({ page, baseURL }) => {
  const tag = randomUUID();
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const t0 = Date.parse('2026-03-01T10:00:00.000Z');
  const run = await api.createRun({
    benchmark: 'endpoint-churn',
    scenario: `e2e-url-${tag}`,
    mesh: { name: 'istio', version: '1.8.2' },
    environment: `e2e-${tag}`,
    labels: { source: 'e2e', e2e: tag },
    startedAt: new Date(t0 - 1000).toISOString(),
  });
  // Change k's proxies i = 1..10 apply after step x i ms: max 100, 300, 200 ms for c1..c3.
  const steps = { c1: 10, c2: 30, c3: 20 } as const;
  const events: ProbeEvent[] = [];
  for (const [k, [id, step]] of Object.entries(steps).entries()) {
    const at = t0 + k * 5000;
    events.push({
      type: 'change',
      id,
      kind: 'endpoint',
      target: `svc-${id}`,
      action: 'add',
      at: new Date(at).toISOString(),
      expected: 10,
    });
    for (let i = 1; i <= 10; i++)
      events.push({
        type: 'observation',
        change: id,
        proxy: `p${i}`,
        at: new Date(at + step * i).toISOString(),
      });
  }
  await api.postEvents(run.id, events, `e2e-${tag}`);
  await api.finishRun(run.id, new Date(t0 + 60_000).toISOString());

  await page.goto(`/runs/${run.id}`);
  const rows = page.getByTestId('churn-row');
  await expect(rows).toHaveCount(3);
  const order = () => rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-change-id')));
  await expect.poll(order).toEqual(['c1', 'c2', 'c3']);
  // Max, slowest first: 300, 200, 100 ms.
  await page.getByTestId('churn-sort-max').click();
  await expect(page).toHaveURL(/churnSort=-max/);
  // The URL changes before the table re-renders: read the order until it settles.
  await expect.poll(order).toEqual(['c2', 'c3', 'c1']);
  await reopen(page);
  await expect(rows).toHaveCount(3);
  await expect.poll(order).toEqual(['c2', 'c3', 'c1']);
});
