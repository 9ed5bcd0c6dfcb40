// The compare page's aligned scale-up timelines: two Consul scale-ups (the demo's 1.9.5 and
// 1.10 runs, lifecycle events through the events API and metrics through OTLP) compared, the
// table and the tooltips checked against the API's own timelines, and a comparison of runs
// without timelines showing no such section.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import {
  apiClient,
  consulScaleUp,
  consulStreamingScaleUp,
  scaleUpRun,
  sendOtlp,
} from '@meshbench/api/demo';
import type { Run, Timeline } from '@meshbench/schema';
import { formatCount } from '@meshbench/web/format';
import { formatOffset, formatValue } from '@meshbench/web/timeline-format';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { apiReads } from './api-reads.ts';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

/** The points the compare page asks for, so the tooltips can be checked point by point. */
const POINTS = 400;
const CONSUL = 'rgb(202, 33, 113)';
/** A second Consul run: the mesh's darker shade (charts/prepare/mesh-colors.ts, #7d1145). */
const CONSUL_SECOND = 'rgb(125, 17, 69)';

/** A held value at t: a count holds from 0, a series only between its own points. */
function heldAt(
  points: { offsetMs: number; value: number | null }[],
  t: number,
  kind: 'count' | 'series',
) {
  const sorted = [...points].sort((a, b) => a.offsetMs - b.offsetMs);
  const first = sorted[0]?.offsetMs;
  const last = sorted.at(-1)?.offsetMs;
  if (kind === 'series' && (first === undefined || last === undefined || t < first || t > last)) {
    return null;
  }
  let v: number | null = kind === 'count' ? 0 : null;
  for (const p of sorted) if (p.offsetMs <= t) v = p.value;
  return v;
}

/** Hovers a chart at a share of its width; returns the tooltip and the instant it shows. */
async function hover(page: Page, chart: Locator, share: number) {
  await chart.scrollIntoViewIfNeeded();
  const box = await chart.boundingBox();
  if (!box) throw new Error('the chart has no box');
  await page.mouse.move(box.x + 64 + (box.width - 80) * share, box.y + box.height * 0.4);
  const tooltip = chart.getByTestId('overlay-tooltip');
  await expect(tooltip).toBeVisible();
  return { tooltip, t: Number(await tooltip.getAttribute('data-t')) };
}

test.describe('aligned timelines on the compare page', () => {
  const benchmark = `e2e-tl-${randomUUID().slice(0, 8)}`;
  let runs: Run[] = [];
  let timelines: Timeline[] = [];

  test.beforeAll(async ({ baseURL }) => {
    mkdirSync(artifacts, { recursive: true });
    runs = [];
    timelines = [];
    const token = process.env.MESHBENCH_ADMIN_TOKEN;
    const api = apiClient(baseURL as string, token);
    for (const scenario of [consulScaleUp, consulStreamingScaleUp]) {
      const data = scaleUpRun(scenario);
      const { finishedAt, ...body } = data.run;
      const created = await api.createRun({
        ...body,
        benchmark,
        labels: { ...body.labels, source: 'e2e' },
      });
      await api.postEvents(created.id, data.events, `${benchmark}-${scenario.seed}`);
      await sendOtlp(baseURL as string, data.otlp(created.id), token);
      runs.push(await api.finishRun(created.id, finishedAt));
    }
    for (const run of runs) {
      timelines.push(await apiReads(baseURL).runs.timeline(run.id, { points: POINTS }));
    }
  });

  test('phases and a shared series overlaid from t = 0, as the API counts them', async ({
    page,
  }) => {
    await page.goto(`/compare?runs=${runs.map((r) => r.id).join(',')}`);
    const section = page.getByTestId('compare-timelines');
    await expect(section).toBeVisible();

    // The table behind the charts: every phase of every run, the API's numbers.
    const phases = (timelines[0] as Timeline).phases.map((p) => p.phase);
    expect(phases.length).toBeGreaterThan(2);
    const expected: string[][] = [];
    for (const phase of phases) {
      for (const t of timelines) {
        const p = t.phases.find((x) => x.phase === phase);
        if (!p) throw new Error(`a run lacks ${phase}`);
        const at = (pc: number) => formatOffset(p.timeTo.find((x) => x.percent === pc)?.offsetMs);
        expected.push([
          phase,
          `${formatCount(p.count)} / ${formatCount(p.total)}`,
          at(50),
          at(90),
          at(100),
        ]);
      }
    }
    const rows = section.getByTestId('compare-timeline-row');
    await expect(rows).toHaveCount(expected.length);
    const shown: string[][] = [];
    for (let i = 0; i < expected.length; i++) {
      const row = rows.nth(i);
      shown.push([
        (await row.getAttribute('data-phase')) ?? '',
        (await row.getByTestId('reached').textContent()) ?? '',
        (await row.getByTestId('time-to-50').textContent()) ?? '',
        (await row.getByTestId('time-to-90').textContent()) ?? '',
        (await row.getByTestId('time-to-100').textContent()) ?? '',
      ]);
    }
    expect(shown).toEqual(expected);
    // 1.10 joined everyone sooner: the comparison the demo was extended for.
    const joined100 = timelines.map(
      (t) => t.phases.find((p) => p.phase === 'joined')?.timeTo.at(-1)?.offsetMs as number,
    );
    expect(joined100[1]).toBeLessThan(joined100[0] as number);

    // One chart per phase, two lines each: consul's colour, the second run in its darker
    // shade and dashed.
    const charts = section.getByTestId('compare-phase-chart');
    await expect(charts).toHaveCount(phases.length);
    const lines = charts.first().locator('path.recharts-line-curve');
    await expect(lines).toHaveCount(2);
    await expect(lines.nth(0)).toHaveCSS('stroke', CONSUL);
    await expect(lines.nth(1)).toHaveCSS('stroke', CONSUL_SECOND);
    expect(await lines.nth(0).getAttribute('stroke-dasharray')).toBeNull();
    expect(await lines.nth(1).getAttribute('stroke-dasharray')).toBe('6 3');

    // The tooltip: every run's count at the cursor, held as the API's points say.
    const joinedChart = section.locator('[data-testid="compare-phase"][data-phase="joined"]');
    const joinedTimelines = timelines.map((t) => t.phases.find((p) => p.phase === 'joined'));
    for (const share of [0.2, 0.45]) {
      const { tooltip, t } = await hover(
        page,
        joinedChart.getByTestId('compare-phase-chart'),
        share,
      );
      const values = joinedTimelines.map((p) =>
        heldAt(
          (p?.points ?? []).map((x) => ({ offsetMs: x.offsetMs, value: x.count })),
          t,
          'count',
        ),
      );
      // Mid-scale-up the two runs differ: the overlay is not drawing one run twice.
      if (share === 0.2) expect(values[0]).not.toBe(values[1]);
      for (const [i, run] of ['r0', 'r1'].entries()) {
        await expect(tooltip.locator(`[data-run-key="${run}"]`)).toContainText(
          `${formatCount(values[i])} of ${formatCount(joinedTimelines[i]?.total)}`,
        );
      }
    }

    // A series both runs carry, picked; its tooltip holds the API's values too.
    const name = 'consul.xds.server.streams';
    await section.getByTestId('compare-series-picker').selectOption(name);
    const seriesChart = section.getByTestId('compare-series-chart');
    await expect(seriesChart.locator('path.recharts-line-curve')).toHaveCount(2);
    const series = timelines.map((t) => t.series.find((s) => s.name === name));
    const { tooltip, t } = await hover(page, seriesChart, 0.3);
    for (const [i, run] of ['r0', 'r1'].entries()) {
      const s = series[i];
      if (!s) throw new Error(`run ${i} has no ${name}`);
      await expect(tooltip.locator(`[data-run-key="${run}"]`)).toContainText(
        formatValue(heldAt(s.points, t, 'series'), s.unit),
      );
    }
    await section.screenshot({ path: artifact('compare-timelines-tooltip.png') });

    // One time axis: every chart ends at the longer run's end, with the same ticks.
    const ticks = (chart: Locator) =>
      chart.locator('.recharts-xAxis .recharts-cartesian-axis-tick-value').allTextContents();
    expect(await ticks(seriesChart)).toEqual(await ticks(charts.first()));
    await page.mouse.move(0, 0);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: artifact('compare-timelines.png'), fullPage: true });
  });

  test('runs without timelines show no timeline section', async ({ page, baseURL }) => {
    const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
    const empty: Run[] = [];
    for (const mesh of ['consul', 'istio']) {
      empty.push(
        await api.createRun({ benchmark, scenario: 'empty', mesh: { name: mesh }, labels: {} }),
      );
    }
    await page.goto(`/compare?runs=${empty.map((r) => r.id).join(',')}`);
    await expect(page.getByTestId('run-card')).toHaveCount(2);
    await expect(page.getByText('no timelines to compare')).toBeVisible();
    await expect(page.getByTestId('compare-timelines')).toHaveCount(0);
  });
});
