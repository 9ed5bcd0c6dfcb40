// A run watched on its page while it is running: batches posted through the API move the
// page's numbers without a reload (EventSource on GET /runs/{id}/live); at the finish the page
// says so and shows the stored result, equal to the API's stored answer.
import { mkdirSync } from 'node:fs';
import { createClient, fetchTransport } from '@meshbench/client';
import { formatCount, formatDurationMs } from '@meshbench/web/format';
import { expect, test } from '@playwright/test';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

test('a running propagation run updates its page as batches land, then shows the stored result', async ({
  page,
  baseURL,
}) => {
  mkdirSync(artifacts, { recursive: true });
  const api = createClient(
    fetchTransport({ url: baseURL as string, token: process.env.MESHBENCH_ADMIN_TOKEN }),
  );
  const t0 = Date.now() - 60_000;
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const run = await api.runs.create({
    benchmark: 'e2e-live',
    scenario: `live-${Date.now()}`,
    mesh: { name: 'consul', version: '1.9.5' },
    startedAt: at(-1000),
  });
  const post = (lines: unknown[]) =>
    api.runs.postEvents(run.id, { body: lines.map((l) => JSON.stringify(l)).join('\n') });
  const observations = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, k) => ({
      type: 'observation',
      change: 'c1',
      proxy: `p-${from + k}`,
      node: `n-${(from + k) % 10}`,
      at: at((((from + k) * 7) % 900) + 20),
    }));
  await post([
    {
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: at(0),
      expected: 1000,
    },
    ...observations(0, 300),
  ]);

  await page.goto(`/runs/${run.slug}`);
  await expect(page.getByTestId('stat-count').first()).toHaveText(formatCount(300));
  await expect(page.getByTestId('live')).toContainText('Live: updated');

  await post(observations(300, 700));
  // No reload: the stream brings the new count.
  await expect(page.getByTestId('stat-count').first()).toHaveText(formatCount(700), {
    timeout: 5000,
  });
  await page.screenshot({ path: artifact('live-run-open.png'), fullPage: true });

  await post(observations(700, 1000));
  await api.runs.finish(run.id, {});
  await expect(page.getByTestId('live')).toContainText('Finished while watched', {
    timeout: 10_000,
  });
  const stored = await api.runs.propagation(run.id, 'c1');
  await expect(page.getByTestId('stat-count').first()).toHaveText(formatCount(stored.count));
  const p99 = stored.percentiles.find((p) => p.p === 99);
  await expect(page.getByTestId('pct-p99').first()).toContainText(
    formatDurationMs(p99?.ms ?? null),
  );
  await page.screenshot({ path: artifact('live-run-ended.png'), fullPage: true });
});
