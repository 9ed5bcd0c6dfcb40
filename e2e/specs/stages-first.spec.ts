// A stages run (Istio's 500k-RPS test) is read by its stages: the stages view comes before the
// data-plane panels, the panels with nothing to draw are one line each with the reason, after
// the charts; the rate axis carries every stage's target; at 700 px the stage table's P99 /
// P50 column is in view and a value stays beside its unit; a shared report keeps the stages.

import { loadStages } from '@meshbench/api/demo';
import { createClient, fetchTransport } from '@meshbench/client';
import { expect, test } from '@playwright/test';

test('a stages run opens on its stages, and its report keeps them', async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  const token = process.env.MESHBENCH_ADMIN_TOKEN;
  const run = await loadStages({ baseUrl: baseURL as string, token });

  await page.goto(`/runs/${run.id}`);
  const stages = page.getByTestId('stages-section');
  await expect(stages).toBeVisible();
  const dataPlane = page.getByTestId('data-plane-section');
  await expect(dataPlane).toBeVisible();
  // DOCUMENT_POSITION_FOLLOWING (4): the data plane comes after the stages.
  const order = await stages.evaluate(
    (s, d) => s.compareDocumentPosition(d as typeof s),
    await dataPlane.elementHandle(),
  );
  expect(order & 4).toBe(4);

  // The demo's stages count no errors: the error-rate panel is one line with its reason.
  const errors = page.getByTestId('stages-errors');
  await expect(errors).toHaveAttribute('data-empty', 'true');
  await expect(errors).toContainText('No interval counts its errors.');
  expect((await errors.boundingBox())?.height ?? 999).toBeLessThan(80);
  // Every empty data-plane panel likewise, below every panel that draws.
  const empty = dataPlane.locator('.load-panel[data-empty="true"]');
  expect(await empty.count()).toBeGreaterThan(0);
  const drawn = dataPlane.locator('.load-panel:not([data-empty])');
  const lastDrawn = await drawn.last().boundingBox();
  for (const box of await empty.all()) {
    const b = await box.boundingBox();
    expect(b?.height ?? 999).toBeLessThan(80);
    expect(b?.y ?? 0).toBeGreaterThan((lastDrawn?.y ?? 0) + (lastDrawn?.height ?? 0) - 1);
  }

  // The rate axis: a tick at each stage's target, 1k beside 500k (the chart's texts).
  const ticks = await page.getByTestId('stages-rps').locator('svg text').allTextContents();
  for (const t of ['1,000', '5,000', '25,000', '500,000'])
    expect(ticks.map((x) => x.trim())).toContain(t);

  // 700 px: P99 / P50 in view without scrolling the table; "~3.11 ms" on one line.
  await page.setViewportSize({ width: 700, height: 900 });
  const table = page.getByTestId('stages-table');
  await table.scrollIntoViewIfNeeded();
  const ratio = table.locator('th', { hasText: 'P99 / P50' });
  const box = await ratio.boundingBox();
  expect((box?.x ?? 9999) + (box?.width ?? 0)).toBeLessThanOrEqual(700);
  const cell = table.locator('[data-testid=stage-row]').first().locator('td').nth(3);
  // One box per line a span is laid out on: the value and its unit on one line.
  const lines = await cell.evaluate(
    (td) => td.querySelector('[data-certainty]')?.getClientRects().length ?? 0,
  );
  expect(lines).toBe(1);

  // The report of the run keeps the stages section.
  const client = createClient(fetchTransport({ url: baseURL as string, token }));
  const created = await client.reports.create({ runs: [run.id] });
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`/r/${created.slug}`);
  await expect(page.getByTestId('stages-section')).toBeVisible();
  await expect(page.getByTestId('stage-row')).toHaveCount(4);
});
