// Compare and share end to end: three meshes' runs posted through the API as a runner would,
// found by filtering the list, compared (the table's differences checked against the API's
// own numbers), shared, and the report opened by someone who has only the link.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { apiClient, endpointPropagationRun, propagationScenarios } from '@meshbench/api/demo';
import type { CompareSignificance, Propagation, Run, Tail } from '@meshbench/schema';
import { formatDurationDelta, formatDurationMs, formatPercent } from '@meshbench/web/format';
import { expect, type Page, test } from '@playwright/test';
import { apiReads } from './api-reads.ts';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

const CHANGE = 'hey-endpoint-delete';
const PERCENTILES = '50,90,95,96,99,99.9';

const oneDecimal = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});
const signed = (n: number, text: string) => (n > 0 ? `+${text}` : text);

/** What a difference cell should read, computed here from the API's numbers. */
function expectedDelta(
  base: number,
  value: number,
  unit: 'ms' | 'share',
  better: 'lower' | 'higher',
  significant: boolean,
) {
  const abs = value - base;
  // A difference that rounds to zero, either side of it, reads ±0.0 (never "-0.0").
  const roundsToZero = (x: number) => oneDecimal.format(Math.abs(x)) === '0.0';
  const absText =
    abs === 0
      ? '±0'
      : unit === 'ms'
        ? formatDurationDelta(abs)
        : roundsToZero(abs * 100)
          ? '±0.0 pp'
          : `${signed(abs, oneDecimal.format(abs * 100))} pp`;
  const rel = (abs / base) * 100;
  const relText = roundsToZero(rel) ? '±0.0 %' : `${signed(rel, oneDecimal.format(rel))} %`;
  // The colour follows the difference as shown: one that reads ±0 is neither better nor worse,
  // and one that is not significant is neutral whatever it reads.
  const verdict =
    absText.startsWith('±') || !significant
      ? 'same'
      : abs < 0 === (better === 'lower')
        ? 'better'
        : 'worse';
  return { abs: absText, rel: relText, verdict };
}

/**
 * Whether two runs' shares within 1 s differ beyond their sampling: the 95 % normal interval
 * of the difference of two proportions (k of n each) excludes 0.
 */
function sharesDiffer(a: Propagation, b: Propagation): boolean {
  const share = (p: Propagation) => {
    const n = p.expected ?? p.count;
    return { p: Math.round((p.withinFraction as number) * n) / n, n };
  };
  const x = share(a);
  const y = share(b);
  const se = Math.sqrt((x.p * (1 - x.p)) / x.n + (y.p * (1 - y.p)) / y.n);
  return x.p !== y.p && Math.abs(y.p - x.p) > 1.959963984540054 * se;
}

const text = async (page: Page, testId: string) =>
  ((await page.getByTestId(testId).first().textContent()) ?? '').trim();

test.describe('comparing three meshes and sharing the comparison', () => {
  // A benchmark name no other run has: the test sees only its own runs, whatever the database holds.
  const benchmark = `e2e-cmp-${randomUUID().slice(0, 8)}`;
  let runs: Run[] = [];
  let summaries: Propagation[] = [];
  let tails: Tail[] = [];
  let significance: CompareSignificance | null = null;

  test.beforeAll(async ({ baseURL }) => {
    mkdirSync(artifacts, { recursive: true });
    runs = [];
    summaries = [];
    tails = [];
    const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
    for (const scenario of propagationScenarios) {
      const generated = endpointPropagationRun(scenario);
      const { finishedAt, ...body } = generated.run;
      body.benchmark = benchmark;
      body.labels = { ...body.labels, source: 'e2e' };
      const created = await api.createRun(body);
      await api.postEvents(created.id, generated.events, `${benchmark}-${scenario.seed}`);
      runs.push(await api.finishRun(created.id, finishedAt));
    }
    // The API's own numbers, read as any client would.
    for (const run of runs) {
      const reads = apiReads(baseURL);
      summaries.push(
        await reads.runs.propagation(run.id, CHANGE, { percentiles: PERCENTILES, withinMs: 1000 }),
      );
      tails.push(await reads.runs.tail(run.id, CHANGE));
    }
    // Which differences are beyond noise: the API's bootstrap intervals, as the page reads them.
    significance = await apiReads(baseURL).compare.significance({
      runs: runs.map((r) => r.id).join(','),
      changes: runs.map(() => CHANGE).join(','),
      percentiles: PERCENTILES,
    });
  });

  /** Reads the delta table on the page and checks every run against the baseline. */
  async function checkDeltas(page: Page) {
    const [base] = summaries;
    if (!base) throw new Error('no baseline');
    const ms = (p: Propagation, pct: number) =>
      p.percentiles.find((x) => x.p === pct)?.ms as number;
    // The colours wait for the intervals (a live page reads them after the summaries).
    await expect(page.getByTestId('delta-table').first()).toHaveAttribute('data-intervals', 'read');
    const checked: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    for (let i = 0; i < summaries.length; i++) {
      const s = summaries[i] as Propagation;
      expected[`value-${i}-p99`] = formatDurationMs(ms(s, 99));
      checked[`value-${i}-p99`] = await text(page, `cmp-value-${i}-p99`);
      expected[`value-${i}-within`] = formatPercent(s.withinFraction);
      checked[`value-${i}-within`] = await text(page, `cmp-value-${i}-within`);
      if (i === 0) continue;
      const beyond = (p: number) => {
        const v = significance?.runs[i]?.differences.find((x) => x.p === p)?.verdict;
        return v === 'regressed' || v === 'improved';
      };
      const rows: [string, number, number, 'ms' | 'share', 'lower' | 'higher', boolean][] = [
        [
          'within',
          base.withinFraction as number,
          s.withinFraction as number,
          'share',
          'higher',
          sharesDiffer(base, s),
        ],
        ['p50', ms(base, 50), ms(s, 50), 'ms', 'lower', beyond(50)],
        ['p90', ms(base, 90), ms(s, 90), 'ms', 'lower', beyond(90)],
        ['p96', ms(base, 96), ms(s, 96), 'ms', 'lower', beyond(96)],
        ['p99', ms(base, 99), ms(s, 99), 'ms', 'lower', beyond(99)],
        ['p99-9', ms(base, 99.9), ms(s, 99.9), 'ms', 'lower', beyond(99.9)],
      ];
      for (const [key, b, v, unit, better, significant] of rows) {
        const e = expectedDelta(b, v, unit, better, significant);
        expected[`${i}-${key}`] = e;
        const abs = page.getByTestId(`cmp-abs-${i}-${key}`).first();
        checked[`${i}-${key}`] = {
          abs: ((await abs.textContent()) ?? '').trim(),
          rel: await text(page, `cmp-rel-${i}-${key}`),
          verdict: await abs.getAttribute('data-verdict'),
        };
      }
    }
    expect(checked).toEqual(expected);
    // A difference the interval holds 0 of reads as one but is neutral, and says why.
    const neutral = significance?.runs.flatMap((r, i) =>
      r.differences
        .filter((d) => d.verdict === 'no-significant-change' && d.deltaMs !== 0)
        .map((d) => `cmp-abs-${i}-p${String(d.p).replace('.', '-')}`),
    );
    expect(neutral?.length).toBeGreaterThan(0);
    const cell = page.getByTestId(neutral?.[0] as string).first();
    await expect(cell).toHaveAttribute('data-verdict', 'same');
    await expect(cell).toHaveText(/[1-9]/);
    await expect(cell).toHaveAttribute('title', /interval .* holds 0/);
    // Better is green, worse red: the cells carry the class the stylesheet colours.
    const worse = page.locator('[data-testid^="cmp-abs-"][data-verdict="worse"]').first();
    await expect(worse).toHaveClass(/delta-worse/);
    await expect(worse).toHaveCSS('color', 'rgb(180, 35, 24)');
    const better = page.locator('[data-testid^="cmp-abs-"][data-verdict="better"]').first();
    await expect(better).toHaveCSS('color', 'rgb(31, 122, 77)');
  }

  test('filter, pick three runs, compare, share, open the link elsewhere', async ({
    page,
    browser,
    request,
  }) => {
    // Filter, compare, share and open elsewhere: 35 s alone here, over 60 s once at load 18.
    test.slow();
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();

    // Filter by our benchmark through the form: the URL carries it, the list shows our runs.
    await page.getByLabel('benchmark').fill(benchmark);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page).toHaveURL(new RegExp(`[?&]benchmark=${benchmark}(&|$)`));
    const rows = page.getByTestId('run-row');
    await expect(rows).toHaveCount(3);
    await expect(page.getByTestId('page-range')).toHaveText('1–3 of 3');

    // Sorting is in the URL too, and the back button undoes it.
    await page.getByTestId('sort-mesh').click();
    await expect(page).toHaveURL(/sort=mesh(&|$)/);
    await expect(rows.first()).toHaveAttribute('data-run-id', runs[0]?.id as string);
    await page.getByTestId('sort-mesh').click();
    await expect(page).toHaveURL(/sort=-mesh(&|$)/);
    await expect(rows.first()).toHaveAttribute('data-run-id', runs[2]?.id as string);
    await page.goBack();
    await expect(page).toHaveURL(/sort=mesh(&|$)/);
    await expect(rows.first()).toHaveAttribute('data-run-id', runs[0]?.id as string);

    // Pick consul first (the baseline), then istio and linkerd.
    for (const run of runs) {
      await page
        .locator(`[data-testid="run-row"][data-run-id="${run.id}"]`)
        .getByTestId('run-pick')
        .check();
    }
    await expect(page.getByTestId('compare-tray')).toContainText('baseline');
    await page.screenshot({ path: artifact('compare-list.png'), fullPage: true });
    await page.getByTestId('compare-button').click();
    await expect(page).toHaveURL(new RegExp(`/compare\\?runs=${runs.map((r) => r.id).join(',')}$`));

    await expect(page.getByTestId('run-card')).toHaveCount(3);
    await expect(page.getByTestId('delta-table')).toBeVisible();
    // Same scenario and size; the platform differs as in the benchmarks (Consul's global-scale
    // run on Nomad, Istio and Linkerd on Kubernetes), and the page says so.
    await expect(page.getByTestId('compare-warning')).toHaveCount(1);
    await expect(page.getByTestId('compare-warning')).toContainText(
      'platform: nomad vs kubernetes vs kubernetes',
    );
    await expect(page.getByTestId('comparability-warning')).toHaveCount(0);
    await checkDeltas(page);

    // Charts: three curves on one chart, three histograms, three stacked tail bars.
    await expect(page.getByTestId('cdf-overlay-chart').locator('.recharts-line-curve')).toHaveCount(
      3,
    );
    const multiples = page.getByTestId('histogram-multiple');
    await expect(multiples).toHaveCount(3);
    for (let i = 0; i < 3; i++) {
      await expect
        .poll(() => multiples.nth(i).locator('.recharts-bar-rectangle').count())
        .toBeGreaterThan(5);
    }
    // The tail totals are the API's: slow proxies plus those that never converged.
    const tailTable = page.getByTestId('tail-shares-table');
    await page
      .getByTestId('tail-shares-panel')
      .getByText(/^Table/)
      .click();
    const totals = tailTable.locator('tr.total-row td.num');
    await expect(totals).toHaveText(
      tails.map((t) => (t.tailCount + t.neverConverged).toLocaleString('en-US')),
    );
    await page.screenshot({ path: artifact('compare.png'), fullPage: true });

    // Share: a link that anyone can open.
    await page.getByTestId('share-button').click();
    await page.getByTestId('share-create').click();
    const link = page.getByTestId('share-link');
    await expect(link).toHaveValue(/\/r\/[A-Za-z0-9_-]{22}$/);
    const url = await link.inputValue();
    const slug = url.split('/r/')[1] as string;

    // A new browser context: no cookies, no storage, only the link.
    const stranger = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    try {
      const reader = await stranger.newPage();
      const apiCalls: string[] = [];
      reader.on('request', (r) => {
        if (r.url().includes('/api/')) apiCalls.push(new URL(r.url()).pathname);
      });
      await reader.goto(url);
      await expect(reader.getByTestId('report-title')).toContainText(
        'consul 1.9.5 vs istio 1.8.2 vs linkerd 2.9.2',
      );
      await expect(reader.getByTestId('report-note')).toContainText('Frozen snapshot');
      await expect(reader.getByTestId('delta-table').first()).toBeVisible();
      await checkDeltas(reader);
      await expect(reader.getByTestId('report-run')).toHaveCount(3);
      // Everything came from the report itself.
      expect(apiCalls).toEqual([`/api/v1/reports/${slug}`]);
      await reader.screenshot({ path: artifact('report.png'), fullPage: true });
    } finally {
      await stranger.close();
    }

    // A pasted link previews well: the server writes Open Graph tags into the page.
    const html = await (await request.get(`/r/${slug}`)).text();
    expect(html).toContain(
      '<meta property="og:title" content="consul 1.9.5 vs istio 1.8.2 vs linkerd 2.9.2',
    );
    expect(html).toMatch(/<meta property="og:description" content="consul 1\.9\.5: P99 /);
  });

  test('a run page shares that run alone', async ({ page }) => {
    const run = runs[1] as Run;
    await page.goto(`/runs/${run.id}`);
    await page.getByTestId('share-button').click();
    await page.getByTestId('share-create').click();
    const url = await page.getByTestId('share-link').inputValue();
    await page.goto(url);
    await expect(page.getByTestId('report-title')).toContainText('istio 1.8.2');
    await expect(page.getByTestId('report-run')).toHaveCount(1);
    await expect(page.getByTestId('pct-p99').first()).toHaveText(
      formatDurationMs(summaries[1]?.percentiles.find((x) => x.p === 99)?.ms),
    );
  });
});

test('a comparison of a run short of its target rate says it is not comparable, and why', async ({
  page,
  baseURL,
}) => {
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const benchmark = `e2e-notcomp-${randomUUID().slice(0, 8)}`;
  // Istio's perf CSV (istio/tools fortio.py --csv): the target rate is in the label (1,000).
  const csv = (achieved: number) =>
    [
      'StartTime,ActualDuration,Labels,NumThreads,ActualQPS,p50,p90,p99',
      `2026-02-01T10:00:00Z,240,0377ba4f_qps_1000_c_64_1024_v2-nullvm_both,64,${achieved},1046,1424,2682`,
    ].join('\n');
  const ids: string[] = [];
  for (const [mesh, achieved] of [
    ['istio', 1000],
    ['linkerd', 940],
  ] as const) {
    const run = await api.createRun({
      benchmark,
      scenario: 'fortio-1000qps',
      mesh: { name: mesh, version: '1.0.0' },
    });
    await api.postResults(run.id, csv(achieved), 'istio-csv');
    ids.push(run.id);
  }
  await page.goto(`/compare?runs=${ids.join(',')}`);
  const warning = page.getByTestId('comparability-warning');
  await expect(warning).toBeVisible();
  // 940 of 1,000 RPS is 6 % below the target: more than the 5 % allowed.
  await expect(warning.locator('li[data-kind="rps-shortfall"]')).toHaveText(
    `Load short of its target rate: achieved RPS below target by more than 5 % in linkerd 1.0.0 (run ${ids[1]?.slice(0, 8)}): 940 of 1,000 RPS (6 % below) at both, 64 connections, 1,000 RPS target`,
  );
  await expect(warning.locator('li')).toHaveCount(1);
  // Above the comparison: right below the run cards.
  const cards = await page.getByTestId('run-card').first().boundingBox();
  const box = await warning.boundingBox();
  expect(box && cards && box.y >= cards.y + cards.height).toBe(true);
});

test('a comparison needs two to four runs', async ({ page }) => {
  await page.goto('/compare?runs=only-one');
  await expect(page.getByRole('alert')).toContainText('Pick 2 to 4 runs to compare');
});

test('a report that does not exist says so', async ({ page }) => {
  await page.goto('/r/no-such-report-slug000');
  await expect(page.getByRole('alert')).toContainText('No such report');
});
