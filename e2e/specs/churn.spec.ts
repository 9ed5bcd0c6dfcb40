// A churn run end to end: three changes posted through the public client with latencies
// chosen so that every figure is worked by hand; the page shows the pooled and the
// per-change P99 distributions under their own names, the heatmap with one row per change,
// and a row opens that change's propagation through the URL (and back).
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { apiClient } from '@meshbench/api/demo';
import type { ProbeEvent } from '@meshbench/schema';
import { expect, test } from '@playwright/test';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

// Proxy i (1..10) applies c1 after 10 i ms, c2 after 20 i ms, c3 after 100 i ms.
const STEP_MS = { c1: 10, c2: 20, c3: 100 } as const;
const PROXIES = 10;

test('a churn run shows pooled and per-change P99s apart, and opens a change from its row', async ({
  page,
  baseURL,
}) => {
  mkdirSync(artifacts, { recursive: true });
  const tag = randomUUID();
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const t0 = Date.parse('2026-03-01T10:00:00.000Z');
  const run = await api.createRun({
    benchmark: 'endpoint-churn',
    scenario: `e2e-${tag}`,
    mesh: { name: 'istio', version: '1.8.2' },
    environment: `e2e-${tag}`,
    labels: { source: 'e2e', e2e: tag },
    startedAt: new Date(t0 - 1000).toISOString(),
  });
  const events: ProbeEvent[] = [];
  for (const [k, [id, step]] of Object.entries(STEP_MS).entries()) {
    const at = t0 + k * 5000;
    events.push({
      type: 'change',
      id,
      kind: 'endpoint',
      target: `svc-${id}`,
      action: 'add',
      at: new Date(at).toISOString(),
      expected: PROXIES,
    });
    for (let i = 1; i <= PROXIES; i++) {
      events.push({
        type: 'observation',
        change: id,
        proxy: `p${i}`,
        at: new Date(at + step * i).toISOString(),
      });
    }
  }
  expect((await api.postEvents(run.id, events, `e2e-${tag}`)).accepted).toBe(events.length);
  await api.finishRun(run.id, new Date(t0 + 60_000).toISOString());

  await page.goto(`/runs/${run.id}`);
  const churn = page.getByTestId('churn-section');
  await expect(churn).toBeVisible();

  // Pooled, 30 values: 16 are <= 100 ms (c1's ten, c2's 20..100, c3's 100), so rank 15 of
  // P50 is 100 ms; P99 is rank ceil(29.7) = 30, c3's 1000 ms.
  const pooled = page.getByTestId('churn-pooled');
  await expect(pooled).toContainText('pooled: every first application of every change together');
  await expect(page.getByTestId('churn-pooled-p50')).toHaveText('100.0 ms');
  await expect(page.getByTestId('churn-pooled-p99')).toHaveText('1.000 s');
  // Per-change P99s: 100, 200, 1000 ms -> median (rank 2) 200 ms, max 1000 ms.
  const perChange = page.getByTestId('churn-per-change');
  await expect(perChange).toContainText('distribution of per-change P99s');
  await expect(page.getByTestId('churn-per-change-median')).toHaveText('200.0 ms');
  await expect(page.getByTestId('churn-per-change-max')).toHaveText('1.000 s');

  // The heatmap: a row per change, in change order, a legend, and the numbers as a table.
  await expect(page.getByTestId('heatmap-row-label')).toHaveText([/^c1/, /^c2/, /^c3/]);
  await expect(page.getByTestId('heatmap-legend')).toBeVisible();
  await page.getByTestId('heatmap-table').locator('summary').click();
  await expect(page.getByTestId('heatmap-table').locator('tbody tr').first()).toBeVisible();
  await churn.screenshot({ path: artifact('churn-section.png') });

  // One change section at a time: the first, until a row names another in the URL.
  await expect(page.getByTestId('change-section')).toHaveAttribute('data-change-id', 'c1');
  await page.locator('[data-testid="churn-row"][data-change-id="c3"]').click();
  await expect(page).toHaveURL(/[?&]change=c3\b/);
  await expect(page.getByTestId('change-section')).toHaveAttribute('data-change-id', 'c3');
  await expect(page.getByTestId('change-select')).toHaveValue('c3');
  // Choosing a change is a step back from which the first one returns.
  await page.goBack();
  await expect(page.getByTestId('change-section')).toHaveAttribute('data-change-id', 'c1');

  // Sorting by P99, slowest first, puts c3 on top.
  await page.getByTestId('churn-sort-p99').click();
  await expect(page.getByTestId('churn-row').first()).toHaveAttribute('data-change-id', 'c3');
});
