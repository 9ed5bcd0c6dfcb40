// The history page: one metric across a benchmark's runs, filtered by branch, as the API has it.
import { randomUUID } from 'node:crypto';
import { apiClient } from '@meshbench/api/demo';
import type { ProbeEvent } from '@meshbench/schema';
import { formatMsValue } from '@meshbench/web/format';
import { expect, test } from '@playwright/test';
import { apiReads } from './api-reads.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
/** A change and one proxy per latency, in whole ms. */
const events = (latencies: number[]): ProbeEvent[] => [
  {
    type: 'change',
    id: 'c1',
    kind: 'endpoint',
    target: 'hey',
    action: 'delete',
    at: new Date(T0).toISOString(),
  },
  ...latencies.map(
    (ms, i): ProbeEvent => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      at: new Date(T0 + ms).toISOString(),
    }),
  ),
];
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

test("the history page shows P99 of a branch's runs, oldest first", async ({ page, baseURL }) => {
  const benchmark = `e2e-history-${randomUUID().slice(0, 8)}`;
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  // P99 is rank 99 of 100: 99 ms for 1..100 ms, 109 ms for 11..110 ms.
  for (const [i, latencies, branch] of [
    [0, range(1, 100), 'main'],
    [1, range(11, 110), 'main'],
    [2, range(501, 600), 'feature'],
  ] as const) {
    const run = await api.createRun({
      benchmark,
      scenario: 'endpoint-propagation',
      mesh: { name: 'consul', version: '1.9.5' },
      labels: { branch },
      startedAt: new Date(T0 + i * 3_600_000).toISOString(),
    });
    await api.postEvents(run.id, events([...latencies]), `history-${benchmark}-${i}`);
  }
  await page.goto(`/history?benchmark=${benchmark}&metric=p99&branch=main`);
  const rows = page.getByTestId('history-table').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0).locator('td').nth(5)).toHaveText(`${formatMsValue(99)} ms`);
  await expect(rows.nth(1).locator('td').nth(5)).toHaveText(`${formatMsValue(109)} ms`);
  await expect(rows.nth(0).locator('td').nth(6)).toHaveText('exact');
  await page.screenshot({
    path: new URL('../artifacts/history.png', import.meta.url).pathname,
    fullPage: true,
  });
});

test('the history page marks the change point where P99 stepped up and links its runs', async ({
  page,
  baseURL,
}) => {
  const benchmark = `e2e-history-cp-${randomUUID().slice(0, 8)}`;
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  // P99 (rank 99 of 100) of 1..100 ms shifted by a night's offset: ~99 ms for 6 nights, then
  // ~149 ms (+50 %) for 6.
  const offsets = [0, 1, 0, 2, 1, 0, 50, 51, 50, 49, 50, 51];
  const ids: string[] = [];
  for (const [i, offset] of offsets.entries()) {
    const run = await api.createRun({
      benchmark,
      scenario: 'endpoint-propagation',
      mesh: { name: 'consul', version: '1.9.5' },
      labels: { branch: 'main' },
      startedAt: new Date(T0 + i * 86_400_000).toISOString(),
    });
    ids.push(run.id);
    await api.postEvents(run.id, events(range(1 + offset, 100 + offset)), `cp-${benchmark}-${i}`);
    // A finish looks for change points in the run's series and keeps them as alerts.
    await api.finishRun(run.id, new Date(T0 + i * 86_400_000 + 3_600_000).toISOString());
  }
  await page.goto(`/history?benchmark=${benchmark}&metric=p99`);
  const cps = page.getByTestId('history-change-points').locator('tbody tr');
  await expect(cps).toHaveCount(1);
  const cells = cps.nth(0).locator('td');
  await expect(cells.nth(0)).toHaveText('endpoint-propagation · consul · main');
  await expect(cells.nth(2).locator('a')).toHaveAttribute('href', `/runs/${ids[6]}`);
  await expect(cells.nth(1).locator('a')).toHaveAttribute('href', `/runs/${ids[5]}`);
  // Means of the two segments' P99s: (99+100+99+101+100+99)/6 and (149+150+149+148+149+150)/6.
  await expect(cells.nth(3)).toHaveText(`${formatMsValue(598 / 6)} ms`);
  await expect(cells.nth(4)).toHaveText(`${formatMsValue(895 / 6)} ms`);
  await expect(page.locator('.recharts-reference-line')).toHaveCount(1);
  // Triage: the change point's alert is open; dismissing it asks why, and says it is done.
  const triage = cps.nth(0).getByTestId('alert-triage');
  await expect(triage.getByTestId('alert-state')).toHaveText('open');
  await triage.getByRole('button', { name: 'dismiss…' }).click();
  await triage.getByLabel('Reason to dismiss').fill('expected: new retry policy');
  await page.screenshot({
    path: new URL('../artifacts/history-change-points.png', import.meta.url).pathname,
    fullPage: true,
  });
  await triage.getByRole('button', { name: 'Dismiss' }).click();
  await expect(triage.getByTestId('alert-state')).toHaveText('dismissed');
  await expect(triage.getByRole('button', { name: 'reopen' })).toBeVisible();
  // A point of the chart opens its run: the 8th run's dot.
  const box = await page.locator('.recharts-line-dots circle').nth(7).boundingBox();
  if (!box) throw new Error('no dot drawn');
  // Where a person clicks: on the point (the highlighted dot drawn over it takes the click).
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect(page).toHaveURL(new RegExp(`/runs/${ids[7]}$`));
});

test('the metric picker offers the metrics the runs have and keeps the choice in the URL', async ({
  page,
  baseURL,
}) => {
  const benchmark = `e2e-history-metric-${randomUUID().slice(0, 8)}`;
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  for (const [i, latencies] of [
    [0, range(1, 100)],
    [1, range(11, 110)],
  ] as const) {
    const run = await api.createRun({
      benchmark,
      scenario: 'endpoint-propagation',
      mesh: { name: 'consul' },
      startedAt: new Date(T0 + i * 3_600_000).toISOString(),
    });
    await api.postEvents(run.id, events([...latencies]), `metric-${benchmark}-${i}`);
  }
  // A scale-up run of the same benchmark: four nodes join at 1, 2, 3 and 4 s.
  const scale = await api.createRun({
    benchmark,
    scenario: 'scale-up',
    mesh: { name: 'consul' },
    topology: { nodes: 4 },
    startedAt: new Date(T0).toISOString(),
  });
  await api.postEvents(
    scale.id,
    [1, 2, 3, 4].map(
      (s): ProbeEvent => ({
        type: 'lifecycle',
        phase: 'joined',
        entity: `node-${s}`,
        at: new Date(T0 + s * 1000).toISOString(),
      }),
    ),
    `metric-${benchmark}-scale`,
  );
  await page.goto(`/history?benchmark=${benchmark}`);
  const metric = page.getByTestId('history-metric');
  await expect(metric).toHaveValue('p99');
  // Propagation and scale-up metrics, no data-plane ones: no run has load results.
  await expect(metric.locator('optgroup')).toHaveCount(2);
  await expect(metric.locator('option[value="joined50"]')).toHaveCount(1);
  await expect(metric.locator('option[value="loadP99"]')).toHaveCount(0);

  // Time to 100 %: the slowest proxy, 100 and 110 ms.
  await metric.selectOption('max');
  await expect(page).toHaveURL(/metric=max/);
  const table = page.getByTestId('history-table');
  await expect(table.locator('thead th').nth(5)).toHaveText('time to 100 %');
  const rows = table.locator('tbody tr');
  await expect(rows.nth(0).locator('td').nth(5)).toHaveText(`${formatMsValue(100)} ms`);
  await expect(rows.nth(1).locator('td').nth(5)).toHaveText(`${formatMsValue(110)} ms`);
  await expect(page.getByTestId('history-change-points').locator('h2')).toHaveText(
    'Change points: time to 100 %',
  );

  // Time to 50 % joined of the scale-up run: the second of four joins, 2 s after its start.
  await metric.selectOption('joined50');
  await page.getByTestId('history-scenario').selectOption('scale-up');
  await expect(page).toHaveURL(/metric=joined50/);
  await expect(rows).toHaveCount(1);
  await expect(rows.nth(0).locator('td').nth(5)).not.toHaveText('—');
  await expect(rows.nth(0).locator('td').nth(6)).toHaveText('exact');
  // The link keeps the choice.
  await page.reload();
  await expect(metric).toHaveValue('joined50');
});

test('the history page opens on the benchmark with the most runs when its URL names none', async ({
  page,
  baseURL,
}) => {
  // The benchmark with the most runs, counted here from the runs list's facets.
  const facets = await apiReads(baseURL).runs.facets();
  const totals = new Map<string, number>();
  for (const c of facets.benchmarkRuns)
    totals.set(c.benchmark, (totals.get(c.benchmark) ?? 0) + c.runs);
  const most = Math.max(...totals.values());
  const largest = [...totals].filter(([, n]) => n === most).map(([b]) => b);
  await page.goto('/history');
  await expect(page).toHaveURL(/[?&]benchmark=/);
  const chosen = new URL(page.url()).searchParams.get('benchmark');
  expect(largest).toContain(chosen);
  await expect(page.getByTestId('history-benchmark')).toHaveValue(chosen as string);
  await expect(page.getByText('Choose a benchmark.')).toHaveCount(0);
});
