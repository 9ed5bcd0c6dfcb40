// The alerts page: a project's change points to triage, found at the runs' finishes, with
// their series linked to the History and the state filter in the URL.
import { randomUUID } from 'node:crypto';
import { apiClient } from '@meshbench/api/demo';
import type { ProbeEvent } from '@meshbench/schema';
import { formatMsValue } from '@meshbench/web/format';
import { expect, type Page, test } from '@playwright/test';

const T0 = Date.parse('2026-04-01T10:00:00Z');
/** A change and one proxy per ms from `from` to `from + 99`. */
const events = (from: number, at: (ms: number) => string): ProbeEvent[] => [
  { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', at: at(0) },
  ...Array.from(
    { length: 100 },
    (_, i): ProbeEvent => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      at: at(from + i),
    }),
  ),
];

test('the alerts page lists the change points of a series, triages one and links its history', async ({
  page,
  baseURL,
}) => {
  const benchmark = `e2e-alerts-${randomUUID().slice(0, 8)}`;
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  // Nine nights; from the 7th every proxy is 50 ms later: P50, P99 and the slowest (time to
  // 100 %) step up, each a change point at the 7th run. All stay within 1 s.
  const offsets = [0, 1, 0, 2, 1, 0, 50, 51, 50];
  const ids: string[] = [];
  for (const [night, offset] of offsets.entries()) {
    const at = (ms: number) => new Date(T0 + night * 86_400_000 + ms).toISOString();
    const run = await api.createRun({
      benchmark,
      scenario: 'endpoint-propagation',
      mesh: { name: 'istio', version: '1.24.0' },
      labels: { branch: 'main' },
      startedAt: at(0),
    });
    ids.push(run.id);
    await api.postEvents(run.id, events(1 + offset, at), `${benchmark}-${night}`);
    await api.finishRun(run.id, at(3_600_000));
  }
  // The e2e server's database may hold other projects (the shared Postgres of the suites).
  await page.goto(`/alerts?project=default&benchmark=${benchmark}`);
  await expect(page).toHaveTitle(/Alerts of default/);
  const rows = page.getByTestId('alert-row');
  await expect(rows).toHaveCount(3);
  const p99 = rows.filter({ has: page.getByRole('cell', { name: 'P99', exact: true }) });
  await expect(p99).toHaveCount(1);
  // P99 (rank 99 of 100) of each night: 99 + offset ms; the means of the two segments.
  const before = (99 + 100 + 99 + 101 + 100 + 99) / 6;
  const after = (149 + 150 + 149) / 3;
  const cells = p99.locator('td');
  await expect(cells.nth(4)).toContainText(
    `${formatMsValue(before)} ms → ${formatMsValue(after)} ms (+${(((after - before) / before) * 100).toFixed(1)} %)`,
  );
  await expect(cells.nth(3).getByRole('link', { name: 'before' })).toHaveAttribute(
    'href',
    `/runs/${ids[5]}`,
  );
  await expect(cells.nth(3).getByRole('link', { name: 'after' })).toHaveAttribute(
    'href',
    `/runs/${ids[6]}`,
  );
  await expect(cells.nth(5)).toHaveText(/^detected by meshbench/);

  // Acknowledged, it leaves the open ones, and the filter is in the URL.
  await p99.getByRole('button', { name: 'acknowledge' }).click();
  await expect(rows).toHaveCount(2);
  await page.getByTestId('alerts-state').selectOption('acknowledged');
  await expect(page).toHaveURL(/state=acknowledged/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first().locator('td').nth(5)).toHaveText(/^acknowledged by /);
  await page.reload();
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId('alert-state')).toHaveText('acknowledged');
  await page.screenshot({
    path: new URL('../artifacts/alerts.png', import.meta.url).pathname,
    fullPage: true,
  });

  // The series opens its History at the alert's metric.
  await rows.first().getByRole('link', { name: benchmark }).click();
  await expect(page).toHaveURL(new RegExp(`/history\\?benchmark=${benchmark}.*metric=p99`));
  await expect(page.getByTestId('history-change-points').locator('tbody tr')).toHaveCount(1);
});

/** The write token the web app keeps in this browser (the e2e tsconfig has no DOM types). */
const savedToken = (page: Page) =>
  page.evaluate(() =>
    (
      globalThis as unknown as { localStorage: { getItem(k: string): string | null } }
    ).localStorage.getItem('meshbench.token'),
  );

test('the alerts page asks for a token when it has none, and keeps only one the server took', async ({
  browser,
  baseURL,
}) => {
  const stranger = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await stranger.newPage();
  await page.goto(`${baseURL}/alerts`);
  const form = page.getByTestId('alerts-token-form');
  await expect(form).toContainText('paste a write token');
  await form.getByLabel('Write token').fill('mb_not-a-token-of-this-server');
  await form.getByRole('button', { name: 'Show alerts' }).click();
  await expect(form).toContainText('was not accepted');
  expect(await savedToken(page)).toBeNull();
  await form.getByLabel('Write token').fill(process.env.MESHBENCH_ADMIN_TOKEN as string);
  await form.getByRole('button', { name: 'Show alerts' }).click();
  await expect(form).toHaveCount(0);
  await expect.poll(() => savedToken(page)).toBe(process.env.MESHBENCH_ADMIN_TOKEN);
  await stranger.close();
});
