// The propagation page end to end: a run posted through the API as a runner would, found in
// the runs list, opened, and its numbers checked against the API's own, formatted as shown.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { apiClient, consulScenario, endpointPropagationRun } from '@meshbench/api/demo';
import { propagation, type Run, stageGap } from '@meshbench/schema';
import { formatCount, formatDurationMs, formatPercent } from '@meshbench/web/format';
import { expect, type Page, test } from '@playwright/test';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

const CHANGE = 'hey-endpoint-delete';
const PERCENTILES = '50,90,95,96,99,99.9';

const cell = (page: Page, testId: string) => page.getByTestId(testId).first();

test.describe('a propagation run', () => {
  let run: Run;
  let proxies: number;
  let applied: number;

  test.beforeAll(async ({ baseURL }) => {
    mkdirSync(artifacts, { recursive: true });
    // Our own run, whatever the database already holds: the demo's generator, with the change
    // made five minutes ago so that this run is the newest, and a label no other run has.
    const tag = randomUUID();
    const t0 = new Date(Date.now() - 5 * 60_000).toISOString();
    const generated = endpointPropagationRun({ ...consulScenario, t0 });
    const { finishedAt, ...body } = generated.run;
    body.labels = { ...body.labels, source: 'e2e', e2e: tag };
    const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
    const created = await api.createRun(body);
    await api.postEvents(created.id, generated.events, `e2e-${tag}`);
    run = await api.finishRun(created.id, finishedAt);
    proxies =
      consulScenario.nodes * consulScenario.proxiesPerNode + consulScenario.slowNode.proxies;
    applied = new Set(generated.events.flatMap((e) => (e.type === 'observation' ? [e.proxy] : [])))
      .size;
  });

  test('a run opened from the list shows the same numbers as the API', async ({
    page,
    request,
  }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();

    // Filter as a user would; the filters land in the URL and in the API request.
    await page.getByLabel('mesh', { exact: true }).fill('consul');
    await page.getByLabel('benchmark', { exact: true }).fill('global-scale');
    await page.getByLabel('scenario', { exact: true }).fill('endpoint-propagation');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page).toHaveURL(
      /mesh=consul&benchmark=global-scale&scenario=endpoint-propagation/,
    );
    const row = page.locator(`[data-testid="run-row"][data-run-id="${run.id}"]`);
    await expect(row).toBeVisible();
    await expect(row).toContainText('consul');
    await expect(row).toContainText('finished');
    await page.screenshot({ path: artifact('runs-list.png'), fullPage: true });

    // The change's panel (tables, CDF and the linear histogram) is one request: the API
    // chooses the histogram's range (range=auto), no second request sized from the first.
    const changeReads: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/changes/${CHANGE}/propagation`)) changeReads.push(r.url());
    });
    await row.getByRole('link').click();
    await expect(page).toHaveURL(new RegExp(`/runs/${run.id}$`));
    await expect(cell(page, 'pct-p96')).toBeVisible();

    const response = await request.get(
      `/api/v1/runs/${run.id}/changes/${CHANGE}/propagation?percentiles=${PERCENTILES}&withinMs=1000`,
    );
    expect(response.ok()).toBe(true);
    const p = propagation.parse(await response.json());
    // The generator decides these; the page and the API must both agree with it.
    expect(p.expected).toBe(proxies);
    expect(p.count).toBe(applied);

    const ms = (pct: number) => p.percentiles.find((x) => x.p === pct)?.ms;
    const expected: Record<string, string> = {
      'pct-p50': formatDurationMs(ms(50)),
      'pct-p90': formatDurationMs(ms(90)),
      'pct-p96': formatDurationMs(ms(96)),
      'pct-p99': formatDurationMs(ms(99)),
      'stat-count': formatCount(p.count),
      'stat-expected': formatCount(p.expected),
      'stat-missing': formatCount(p.missing),
      'stat-within': formatPercent(p.withinFraction),
      'stat-before-change': formatCount(p.beforeChange),
      'stat-repeats': formatCount(p.repeats),
    };
    const shown: Record<string, string> = {};
    for (const id of Object.keys(expected)) {
      shown[id] = ((await cell(page, id).textContent()) ?? '').trim();
    }
    expect(shown).toEqual(expected);
    // And the figures look like figures: "19,988", "96.1 %", "962.4 ms" (or "12.3 s", "10.2 min").
    expect(shown['stat-count']).toMatch(/^\d{1,3}(,\d{3})*$/);
    expect(shown['stat-within']).toMatch(/^\d{1,3}\.\d %$/);
    expect(shown['pct-p96']).toMatch(/^-?[\d,]+(\.\d+)? (ms|s|min)$/);

    // The linear histogram shows the body, with the tail counted beyond its end.
    const histogram = page.getByTestId('histogram-chart').first();
    const bars = histogram.locator('.recharts-bar-rectangle');
    await expect(histogram).toHaveAttribute('data-scale', 'linear');
    await expect(histogram).toHaveAttribute('aria-busy', 'false');
    expect(changeReads, changeReads.join('\n')).toHaveLength(1);
    expect(changeReads[0]).toContain('range=auto');
    await expect.poll(() => bars.count()).toBeGreaterThan(10);
    await expect(page.getByTestId('histogram-note').first()).toContainText('not shown');
    await expect(
      page.getByTestId('convergence-chart').first().locator('.recharts-line-curve'),
    ).toHaveCount(1);
    await page.screenshot({ path: artifact('run-page.png') });
    await page.screenshot({ path: artifact('run-page-full.png'), fullPage: true });

    // Log scale: a new request, a re-drawn chart whose axis reaches the tail (minutes).
    const ticks = histogram.locator(
      '.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value',
    );
    // One unit on the axis, its largest tick's (0 to 1 s: seconds), never "200 ms, 1 s".
    await expect(ticks.filter({ hasText: /^0\.2 s$/ })).toHaveCount(1);
    await expect(ticks.filter({ hasText: / ms$/ })).toHaveCount(0);
    await page.getByTestId('histogram-scale-log').first().click();
    await expect(histogram).toHaveAttribute('data-scale', 'log');
    await expect(histogram).toHaveAttribute('aria-busy', 'false');
    await expect(ticks.filter({ hasText: /^100 s$/ })).toHaveCount(1);
    await expect(ticks.filter({ hasText: /^200 ms$/ })).toHaveCount(0);
    await expect.poll(() => bars.count()).toBeGreaterThan(10);

    // Every chart has its data behind it, as CSV.
    for (const id of ['histogram-csv', 'convergence-csv']) {
      const href = await page.getByTestId(id).first().getAttribute('href');
      expect(href).toContain('format=csv');
      const csv = await request.get(href as string);
      expect(csv.ok()).toBe(true);
      expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
      expect(await csv.text()).toMatch(/^section,key,value,extra\n/);
    }
    const logCsv = await page.getByTestId('histogram-csv').first().getAttribute('href');
    expect(logCsv).toContain('scale=log');
  });

  test('the histogram marks percentiles and the threshold the URL asks for', async ({ page }) => {
    // Without options: P50, P96 (and P99, beyond this run's linear range) and the 1 s line.
    await page.goto(`/runs/${run.id}`);
    const histogram = page.getByTestId('histogram-chart').first();
    const labels = histogram.locator('svg text');
    await expect(labels.filter({ hasText: /^P50$/ })).toHaveCount(1);
    await expect(labels.filter({ hasText: /^P96$/ })).toHaveCount(1);
    await expect(labels.filter({ hasText: /^≤ 1 s$/ })).toHaveCount(1);

    // A shared link with its own: the API is asked for them and the page says so.
    await page.goto(`/runs/${run.id}?percentiles=50,90&withinMs=2500`);
    await expect(labels.filter({ hasText: /^P90$/ })).toHaveCount(1);
    await expect(labels.filter({ hasText: /^P96$/ })).toHaveCount(0);
    await expect(labels.filter({ hasText: /^≤ 2.5 s$/ })).toHaveCount(1);
    await expect(page.locator('.change-head').first()).toContainText('within 2.5 s');

    // Changed in the form: into the URL, so that the link keeps them.
    const form = page.getByTestId(`histogram-${CHANGE}-marks`);
    await form.locator('input[name="percentiles"]').fill('50, 99.9');
    await form.locator('input[name="withinMs"]').fill('1000');
    await form.getByRole('button', { name: 'Apply' }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${run.id}\\?percentiles=50%2C99.9$`));
    await expect(labels.filter({ hasText: /^≤ 1 s$/ })).toHaveCount(1);
    await expect(labels.filter({ hasText: /^P90$/ })).toHaveCount(0);
  });

  test('a change seen at two stages: the stage in the URL, coverage, and the gap', async ({
    page,
    request,
  }) => {
    const api = async (path: string) => {
      const response = await request.get(`/api/v1/runs/${run.id}/changes/${CHANGE}${path}`);
      expect(response.ok()).toBe(true);
      return response.json();
    };
    await page.goto(`/runs/${run.id}`);
    const selector = page.getByTestId('stage-selector').first();
    await expect(selector.getByTestId('stage-applied')).toHaveAttribute('aria-pressed', 'true');
    // Coverage under the table: the API's times, as the page writes durations.
    const applied = propagation.parse(await api('/propagation'));
    const half = applied.coverage.points.find((c) => c.percent === 50);
    await expect(cell(page, 'coverage-50')).toHaveText(formatDurationMs(half?.ms ?? null));
    await expect(cell(page, 'coverage-100')).toHaveText('never'); // 12 proxies never applied it

    // Received: chosen on the page, kept in the URL, and the numbers are that stage's.
    await selector.getByTestId('stage-received').click();
    await expect(page).toHaveURL(new RegExp(`/runs/${run.id}\\?stage=received$`));
    await expect(selector.getByTestId('stage-received')).toHaveAttribute('aria-pressed', 'true');
    const received = propagation.parse(await api('/propagation?stage=received'));
    const p50 = received.percentiles.find((x) => x.p === 50)?.ms;
    expect(p50).not.toBe(applied.percentiles.find((x) => x.p === 50)?.ms);
    await expect(cell(page, 'pct-p50')).toHaveText(formatDurationMs(p50));
    await expect(page.getByTestId('percentile-table').first()).toContainText('Received');

    // The gap from received to applied, per proxy.
    const gap = stageGap.parse(await api('/stages/gap?percentiles=50,90,99'));
    await expect(cell(page, 'gap-count')).toHaveText(formatCount(gap.count));
    await expect(cell(page, 'gap-p50')).toHaveText(
      formatDurationMs(gap.percentiles.find((x) => x.p === 50)?.ms),
    );
    await expect
      .poll(() => page.getByTestId('stage-gap-chart').locator('.recharts-bar-rectangle').count())
      .toBeGreaterThan(10);
    await page.screenshot({ path: artifact('run-page-stages.png'), fullPage: true });
  });
});

test('a run that does not exist shows the API error', async ({ page }) => {
  await page.goto('/runs/no-such-run');
  await expect(page.getByRole('alert')).toContainText('run "no-such-run" not found');
});
