// The runs list for triage: each run's headline number, search and filters by any part of a
// value ignoring case, labels as k=v with a wrong form refused out loud, versions sorted as
// versions, and picks that survive Compare -> Back.
import { randomUUID } from 'node:crypto';
import { apiClient } from '@meshbench/api/demo';
import type { ProbeEvent } from '@meshbench/schema';
import { expect, test } from '@playwright/test';

const T0 = Date.parse('2026-03-02T10:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

/** One change expected at 4 proxies, applied by 3 at these latencies (ms). */
const propagation = (latencies: number[]): ProbeEvent[] => [
  {
    type: 'change',
    id: 'c1',
    kind: 'endpoint',
    target: 'hey',
    action: 'delete',
    at: iso(0),
    expected: 4,
  },
  ...latencies.map(
    (ms, i): ProbeEvent => ({ type: 'observation', change: 'c1', proxy: `p${i}`, at: iso(ms) }),
  ),
];

async function seed(baseURL: string) {
  const benchmark = `e2e-list-${randomUUID().slice(0, 8)}`;
  const api = apiClient(baseURL, process.env.MESHBENCH_ADMIN_TOKEN);
  const runs = [];
  for (const [i, mesh, version] of [
    [0, 'istio', '1.9.5'],
    [1, 'istio', '1.10.0'],
    [2, 'linkerd', '2.14.1'],
  ] as const) {
    const run = await api.createRun({
      benchmark,
      scenario: 'endpoint-propagation',
      mesh: { name: mesh, version },
      platform: 'kubernetes',
      topology: { nodes: 10, instances: 200 },
      labels: { branch: i === 2 ? 'feature' : 'main', sha: `${'ab'.repeat(19)}0${i}` },
      startedAt: iso(i * 3_600_000),
    });
    // P99 of 3 observations is the third; 2 of the 4 expected within 1 s.
    await api.postEvents(run.id, propagation([100, 200, 1500 + i]), `list-${run.id}`);
    runs.push(run);
  }
  return { benchmark, runs };
}

test('the list heads each run with its number, and searches by any part, ignoring case', async ({
  page,
  baseURL,
}) => {
  const { benchmark } = await seed(baseURL as string);
  await page.goto(`/?benchmark=${benchmark}`);
  const rows = page.getByTestId('run-row');
  await expect(rows).toHaveCount(3);
  // Newest first: linkerd's P99 is 1,502 ms.
  await expect(rows.first().getByTestId('run-headline')).toContainText('P99 1.502 s');
  await expect(rows.first().getByTestId('run-headline')).toContainText('50.0 % within 1 s');
  await expect(rows.first()).toContainText('10 nodes · 200 instances');
  await expect(rows.first()).toContainText('feature');
  await expect(rows.first()).toContainText('abababababab');

  await page.locator('input[name="mesh"]').fill('IST');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(rows).toHaveCount(2);
  await expect(page).toHaveURL(/mesh=IST/);
  // By mesh: istio 1.9.5 before 1.10.0, as versions read.
  await page.getByTestId('sort-mesh').click();
  await expect(rows.nth(0)).toContainText('1.9.5');
  await expect(rows.nth(1)).toContainText('1.10.0');
  await expect(page).toHaveTitle('Runs (filtered) · meshbench');
});

test('a label filters as k=v or k:v, and a wrong form says so', async ({ page, baseURL }) => {
  const { benchmark } = await seed(baseURL as string);
  await page.goto(`/?benchmark=${benchmark}`);
  const rows = page.getByTestId('run-row');
  await expect(rows).toHaveCount(3);
  await page.getByTestId('label-input').fill('branch');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('label-error')).toContainText('must be key=value');
  await expect(rows).toHaveCount(3);
  await page.getByTestId('label-input').fill('branch=feature');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId('label-error')).toHaveCount(0);
  await expect(page.getByTestId('label-filters')).toContainText('branch=feature');
  await page.getByRole('button', { name: 'remove label filter branch=feature' }).click();
  await expect(rows).toHaveCount(3);
  await page.getByTestId('label-input').fill('branch:main');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(rows).toHaveCount(2);
  // A link with a label in a wrong form says it left it out.
  await page.goto(`/?benchmark=${benchmark}&label=nocolon`);
  await expect(page.getByTestId('label-error')).toContainText('label "nocolon" must be key=value');
});

test('picks for compare survive Compare -> Back', async ({ page, baseURL }) => {
  const { benchmark, runs } = await seed(baseURL as string);
  await page.goto(`/?benchmark=${benchmark}`);
  const pick = (id: string) =>
    page.locator(`[data-testid="run-row"][data-run-id="${id}"]`).getByTestId('run-pick');
  await pick(runs[0]?.id as string).check();
  await pick(runs[2]?.id as string).check();
  await page.getByTestId('compare-button').click();
  await expect(page).toHaveURL(/\/compare\?runs=/);
  await expect(page).toHaveTitle(/^Compare istio 1\.9\.5 vs linkerd 2\.14\.1 · meshbench$/);
  await page.goBack();
  await expect(pick(runs[0]?.id as string)).toBeChecked();
  await expect(pick(runs[2]?.id as string)).toBeChecked();
  await expect(pick(runs[1]?.id as string)).not.toBeChecked();
  await expect(page.getByTestId('compare-tray')).toContainText('baseline');
});

test('a churn run is headed by its changes pooled, and names its worst change', async ({
  page,
  baseURL,
}) => {
  const benchmark = `e2e-churn-${randomUUID().slice(0, 8)}`;
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const run = await api.createRun({
    benchmark,
    scenario: 'churn',
    mesh: { name: 'istio', version: '1.22.0' },
    startedAt: iso(0),
  });
  // Three changes a minute apart, 100 proxies each: c1 at i x 10 ms, c2 at 1,000 + i x 10,
  // c3 at i ms (i = 1..100). Own P99s (rank 99): 990, 1,990, 99 ms. Pooled, c2 holds ranks
  // 201-300: P99 (rank 297) is its 97th, 1,970 ms; 200 of 300 within 1 s. The first change
  // alone would say 990 ms.
  const latency: Record<string, (i: number) => number> = {
    c1: (i) => i * 10,
    c2: (i) => 1000 + i * 10,
    c3: (i) => i,
  };
  const events: ProbeEvent[] = [];
  for (const [k, [id, ms]] of Object.entries(latency).entries()) {
    events.push({
      type: 'change',
      id,
      kind: 'endpoint',
      target: 'web',
      action: 'add',
      at: iso(k * 60_000),
    });
    for (let i = 1; i <= 100; i++)
      events.push({ type: 'observation', change: id, proxy: `p${i}`, at: iso(k * 60_000 + ms(i)) });
  }
  await api.postEvents(run.id, events, `churn-${run.id}`);
  await page.goto(`/?benchmark=${benchmark}`);
  await expect(page.getByTestId('run-headline')).toHaveText(
    // Pooled P50 (rank 150): c3's 100 values and c1's ten up to 100 ms hold ranks 1-110, so
    // rank 150 is c1's 50th, 500 ms; the last first application is c2's 2,000 ms.
    'propagation300 first applications over 3 changes in 2.000 s; P50 500.0 ms, P99 1.970 s; 66.7 % within 1 s; worst change c2: P99 1.990 s',
  );
});
