// The tail panel end to end: on a run shaped like the demo's (a big node whose 110 proxies
// are the slowest), what sets the tail apart leads with that node, in a sentence whose
// figures are worked out here from the generator's events; the cut picked lives in the URL;
// each cause says what its name means.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { apiClient, consulScenario, endpointPropagationRun } from '@meshbench/api/demo';
import { CAUSE_DESCRIPTIONS, type Run } from '@meshbench/schema';
import { formatCount } from '@meshbench/web/format';
import { expect, test } from '@playwright/test';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

test.describe('what sets the tail apart', () => {
  let run: Run;
  /** Proxies that applied the change (each counted once). */
  let applied: number;
  const slowNode = `node-${String(consulScenario.nodes).padStart(4, '0')}`;
  const onSlowNode = consulScenario.slowNode.proxies;

  test.beforeAll(async ({ baseURL }) => {
    mkdirSync(artifacts, { recursive: true });
    const tag = randomUUID();
    const t0 = new Date(Date.now() - 5 * 60_000).toISOString();
    const generated = endpointPropagationRun({ ...consulScenario, t0 });
    const { finishedAt, ...body } = generated.run;
    body.labels = { ...body.labels, source: 'e2e', e2e: tag };
    const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
    const created = await api.createRun(body);
    await api.postEvents(created.id, generated.events, `e2e-attribution-${tag}`);
    run = await api.finishRun(created.id, finishedAt);
    applied = new Set(generated.events.flatMap((e) => (e.type === 'observation' ? [e.proxy] : [])))
      .size;
  });

  test('leads with the slow node, in words, and keeps the cut in the URL', async ({ page }) => {
    // On Auto the attribution's tail is the proxies slower than P99: nearest rank
    // ceil(0.99 n), so n - ceil(0.99 n) proxies are slower (latencies are distinct), and the
    // slow node's 110, the slowest of all, are among them. Lift = (110 / tail) / (110 / n).
    const tailCount = applied - Math.ceil(0.99 * applied);
    expect(tailCount).toBeGreaterThan(onSlowNode);
    const lift = Math.round(applied / tailCount);
    const percent = Math.round((onSlowNode / tailCount) * 100);
    const sentence = `${onSlowNode} of the ${formatCount(tailCount)} slowest proxies (${percent} %) are on node ${slowNode}: ${formatCount(lift)} × over-represented (${onSlowNode} of all ${formatCount(applied)}).`;

    await page.goto(`/runs/${run.id}`);
    const panel = page.getByTestId('tail-panel');
    const attribution = panel.getByTestId('tail-attribution');
    await expect(attribution.getByTestId('tail-attribution-sentence')).toHaveText(sentence);
    // The sentence comes first in the panel's body, and the table leads with the same value.
    await expect(panel.locator('.tail-body > :first-child')).toHaveAttribute(
      'data-testid',
      'tail-attribution',
    );
    await expect(attribution.getByTestId('tail-attribution-cut')).toContainText(
      `the ${formatCount(tailCount)} proxies slower than P99`,
    );
    // The run's nodes report their clocks: the tail is counted on corrected latencies, and
    // both the attribution and the causes say so.
    await expect(attribution.getByTestId('tail-attribution-clock')).toHaveAttribute(
      'data-clock',
      'corrected',
    );
    await expect(attribution.getByTestId('tail-attribution-clock')).toContainText(
      'latencies corrected for node clocks',
    );
    await expect(panel.getByTestId('tail-clock')).toContainText('corrected for node clocks');
    const first = attribution.getByTestId('tail-attribution-row').first().locator('td');
    await expect(first.nth(0)).toHaveText('node');
    await expect(first.nth(1)).toHaveText(slowNode);
    await expect(first.nth(2)).toHaveText(String(onSlowNode));
    // Auto on this run is 1 s (its median is well under it), and says so.
    await expect(panel.getByTestId('tail-cut-note')).toHaveAttribute('data-cut-rule', 'default');
    await expect(panel.getByTestId('tail-cut-note')).toContainText('slower than 1 s');

    // Each cause says what its name means, or that the runner named it.
    const backoff = panel.locator('[data-cause="reconnect-backoff"]');
    await expect(backoff.getByTestId('tail-cause-description')).toHaveText(
      CAUSE_DESCRIPTIONS['reconnect-backoff'] as string,
    );
    await expect(
      panel.locator('[data-cause="unexplained"]').getByTestId('tail-cause-description'),
    ).toContainText('meshbench cannot say why');
    await panel.screenshot({ path: artifact('tail-panel.png') });
    await attribution.screenshot({ path: artifact('tail-attribution.png') });

    // "> P99": into the URL; the same cut as Auto's attribution, so the same sentence, and
    // the cut note names the percentile.
    await panel.getByTestId('tail-threshold-p99').click();
    await expect(page).toHaveURL(new RegExp(`/runs/${run.id}\\?tail=p99$`));
    await expect(panel.getByTestId('tail-cut-note')).toHaveAttribute('data-cut-rule', 'thresholdP');
    await expect(attribution.getByTestId('tail-attribution-sentence')).toHaveText(sentence);

    // A shared link opens on its cut: > 1 s, where the node holds too little of the tail to
    // lead (the incidents cover more of it), and the button shows which cut is on.
    await page.goto(`/runs/${run.id}?tail=1s`);
    await expect(panel.getByTestId('tail-threshold-1s')).toHaveAttribute('aria-pressed', 'true');
    await expect(panel.getByTestId('tail-cut-note')).toHaveAttribute(
      'data-cut-rule',
      'thresholdMs',
    );
    await expect(attribution.getByTestId('tail-attribution-sentence')).not.toContainText(slowNode);
  });
});
