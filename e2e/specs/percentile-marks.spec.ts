// Percentiles that say what they are, end to end: one run holds a change whose propagation
// percentiles are exact (nearest rank over the observations posted here, computed by hand)
// and an OTLP histogram exported through the OpenTelemetry SDK's exporter, whose series
// percentiles are estimates. The page shows the exact ones bare, saying "exact" on hover,
// and the estimates with "~" and the bound the API gives, with a legend under their table.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { apiClient, consulScaleUp, scaleUpRun, sendOtlp } from '@meshbench/api/demo';
import type { ProbeEvent } from '@meshbench/schema';
import { formatValue } from '@meshbench/web/timeline-format';
import { expect, test } from '@playwright/test';
import { apiReads } from './api-reads.ts';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

const CHANGE = 'marks-endpoint-delete';
/** Proxy i (1..100) applies the change i ms after it: nearest rank P is then P ms. */
const PROXIES = 100;
const HISTOGRAM = 'consul.raft.commit_time';

test('exact percentiles are shown bare, estimates with "~" and their bound', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  mkdirSync(artifacts, { recursive: true });
  const tag = randomUUID();
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  // The demo's scale-up on 20 nodes: its OTLP export (a delta histogram of raft commit
  // times among others) falls inside this run's window.
  const scale = scaleUpRun({ ...consulScaleUp, nodes: 20 });
  const { finishedAt, ...body } = scale.run;
  const run = await api.createRun({
    ...body,
    environment: `e2e-${tag}`,
    labels: { source: 'e2e', e2e: tag },
  });
  const changeAt = Date.parse(body.startedAt as string) + 60_000;
  const events: ProbeEvent[] = [
    {
      type: 'change',
      id: CHANGE,
      kind: 'endpoint',
      target: 'marks',
      action: 'delete',
      at: new Date(changeAt).toISOString(),
      expected: PROXIES,
    },
  ];
  for (let i = 1; i <= PROXIES; i++) {
    events.push({
      type: 'observation',
      change: CHANGE,
      proxy: `marks-${String(i).padStart(3, '0')}`,
      at: new Date(changeAt + i).toISOString(),
    });
  }
  expect((await api.postEvents(run.id, events, `e2e-${tag}`)).accepted).toBe(events.length);
  await sendOtlp(baseURL as string, scale.otlp(run.id), process.env.MESHBENCH_ADMIN_TOKEN);
  await api.finishRun(run.id, finishedAt);

  // What the API says of the histogram's percentiles: estimates, whatever the estimator.
  const series = await apiReads(baseURL).runs.series(run.id);
  const histogram = series.find((s) => s.name === HISTOGRAM);
  const estimated = histogram?.stats.percentiles ?? [];
  expect(estimated.length).toBeGreaterThan(0);
  for (const x of estimated) expect(x.exact).toBe(false);

  await page.goto(`/runs/${run.id}`);

  // Exact: by hand, nearest rank of 1..100 ms is P ms (P99.9: rank 100).
  const exact: Record<string, string> = {
    'pct-p50': '50.0 ms',
    'pct-p90': '90.0 ms',
    'pct-p96': '96.0 ms',
    'pct-p99': '99.0 ms',
    'pct-p99-9': '100.0 ms',
  };
  for (const [id, text] of Object.entries(exact)) {
    const cell = page.getByTestId(id).first();
    await expect(cell).toHaveText(text);
    await expect(cell.locator('[data-certainty]')).toHaveAttribute(
      'title',
      'exact (nearest rank over all recorded values)',
    );
  }
  await expect(page.getByTestId('percentile-table')).not.toContainText('~');

  // Estimated: "~" before the value, the bound on hover and in the accessible name.
  const row = page.locator(`[data-testid="series-stats-row"][data-series="${HISTOGRAM}"]`);
  await expect(row).toBeVisible();
  for (const x of estimated) {
    const cell = row.getByTestId(`series-p${String(x.p).replace('.', '-')}`);
    await expect(cell).toHaveText(`~${formatValue(x.value, histogram?.unit ?? null)}`);
    const mark = cell.locator('[data-certainty="estimate"]');
    const title = (await mark.getAttribute('title')) ?? '';
    expect(title.startsWith(`estimated by ${x.method}: `)).toBe(true);
    if (x.relativeError !== undefined) {
      // 0.01 -> "±1 %": the API's relative error, as a percentage.
      expect(title).toContain(`±${Number((x.relativeError * 100).toPrecision(3))} %`);
    }
    if (typeof x.lower === 'number' && typeof x.upper === 'number') {
      expect(title).toContain('between ');
    }
    expect(await mark.getAttribute('aria-label')).toContain(title);
  }
  const legend = page.getByTestId('series-stats').getByTestId('accuracy-legend');
  await expect(legend).toHaveText(
    '~ marks an estimated percentile; hover it for its bound. Unmarked percentiles are exact (nearest rank over all recorded values).',
  );
  // The propagation table holds only exact percentiles: it needs no legend.
  await expect(page.getByTestId('accuracy-legend')).toHaveCount(1);

  await page.getByTestId('series-stats').scrollIntoViewIfNeeded();
  await page.screenshot({ path: artifact('percentile-marks.png'), fullPage: true });
});
