// The demo's Consul scale-up (1,000 nodes joining over nine minutes, three allocations each,
// control-plane CPU and memory over StatsD) on the run page: the numbers table beside the
// lifecycle chart quotes the times to 50/90/99/100 % joined, peak and steady CPU and the
// peak placement rate, each computed here from the demo's own events and StatsD lines; the
// charts carry the join marks, the pending line and the placement rate.
import { mkdirSync } from 'node:fs';
import { consulScaleUp, loadScaleUp, scaleUpRun } from '@meshbench/api/demo';
import { timeline } from '@meshbench/schema';
import { formatOffset, formatValue } from '@meshbench/web/timeline-format';
import { expect, test } from '@playwright/test';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

test('a scale-up run quotes time to x % joined, peak/steady CPU and the placement rate', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  mkdirSync(artifacts, { recursive: true });
  const scenario = { ...consulScaleUp };
  const data = scaleUpRun(scenario);
  const t0 = Date.parse(data.run.startedAt as string);
  const token = process.env.MESHBENCH_ADMIN_TOKEN;
  const run = await loadScaleUp({
    baseUrl: baseURL as string,
    token,
    statsdPort: Number(process.env.E2E_STATSD_PORT),
  });
  // StatsD is flushed in the background: wait for the last second's CPU sample.
  await expect
    .poll(
      async () => {
        const res = await fetch(`${baseURL}/api/v1/runs/${run.id}/timeline?points=1000`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const body = timeline.parse(await res.json());
        const cpu = body.series.find((s) => s.name === 'consul.server.cpu_pct');
        return cpu?.points.at(-1)?.offsetMs ?? -1;
      },
      { timeout: 60_000 },
    )
    .toBeGreaterThanOrEqual(scenario.durationMs - 2_000);

  // By hand from the demo's events: the join times sorted, the k-th at rank ceil(p % of 1000).
  const joins = data.events
    .flatMap((e) => (e.type === 'lifecycle' && e.phase === 'joined' ? [Date.parse(e.at) - t0] : []))
    .sort((a, b) => a - b);
  const at = (p: number) => joins[Math.ceil((p / 100) * scenario.nodes) - 1] as number;
  const lastJoin = joins.at(-1) as number;
  // Steady starts when the ramp ends: the last phase at 100 % of its total, or the last arrival
  // of a phase that never gets there (running: a few placements never start). Here that is
  // the latest first arrival of any entity in any phase, later than the last join.
  const firsts = new Map<string, number>();
  for (const e of data.events) {
    if (e.type !== 'lifecycle') continue;
    const key = `${e.phase}\u0000${e.entity}`;
    const t = Date.parse(e.at) - t0;
    firsts.set(key, Math.min(firsts.get(key) ?? t, t));
  }
  const rampEnd = Math.max(...firsts.values());
  expect(rampEnd).toBeGreaterThan(lastJoin);
  // CPU: one StatsD sample a second; steady = the mean of those at or after the ramp's end.
  const cpu = data.statsdLines('x').flatMap((l) => {
    const m = /^consul\.server\.cpu_pct:([\d.]+)\|g\|.*\|T(\d+)$/.exec(l);
    return m ? [{ t: Number(m[2]) * 1000 - t0, v: Number(m[1]) }] : [];
  });
  const peakCpu = Math.max(...cpu.map((c) => c.v));
  const after = cpu.filter((c) => c.t >= rampEnd);
  const steadyCpu = after.reduce((a, c) => a + c.v, 0) / after.length;
  // Placements per 1 s bucket (900 s on 1,000 points: 1 s buckets), the busiest one.
  const perSecond = new Map<number, number>();
  for (const e of data.events) {
    if (e.type !== 'lifecycle' || e.phase !== 'scheduled') continue;
    const s = Math.floor((Date.parse(e.at) - t0) / 1000);
    perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
  }
  const peakRate = Math.max(...perSecond.values());

  await page.goto(`/runs/${run.id}`);
  const numbers = page.getByTestId('scale-up-numbers');
  // The timeline of 1,000 nodes' events and nine series takes a while on a loaded machine.
  await expect(numbers).toBeVisible({ timeout: 60_000 });
  await expect(numbers.locator('caption')).toHaveText('Scale-up numbers');
  await expect(page.getByTestId('number-time-to-50').locator('td')).toHaveText(
    formatOffset(at(50)),
  );
  await expect(page.getByTestId('number-time-to-90').locator('td')).toHaveText(
    formatOffset(at(90)),
  );
  await expect(page.getByTestId('number-time-to-99').locator('td')).toHaveText(
    formatOffset(at(99)),
  );
  await expect(page.getByTestId('number-time-to-100').locator('td')).toHaveText(
    formatOffset(lastJoin),
  );
  const cpuRows = numbers.locator('tr', {
    hasText: 'consul.server.cpu_pct {server=consul-server-1}',
  });
  await expect(cpuRows.filter({ hasText: 'Peak CPU' }).locator('td')).toHaveText(
    formatValue(peakCpu, '%'),
  );
  await expect(cpuRows.filter({ hasText: 'Steady CPU' }).locator('td')).toHaveText(
    formatValue(steadyCpu, '%'),
  );
  await expect(page.getByTestId('number-peak-placement-rate').locator('td')).toHaveText(
    `${peakRate}/s`,
  );
  // The seed's shape: about 43 % while scaling, 5-10 % after.
  expect(peakCpu).toBeGreaterThan(35);
  expect(steadyCpu).toBeLessThan(10);

  // The lifecycle chart: four phases and the dashed pending line, the join marks labelled.
  const phases = page.getByTestId('timeline-phases-chart');
  await expect(phases.locator('.recharts-line')).toHaveCount(5);
  await expect(phases.locator('.recharts-reference-line')).toHaveCount(4);
  await expect(phases.getByText('all joined')).toBeVisible();
  await expect(phases.getByText('50 %', { exact: true })).toBeVisible();
  await expect(page.getByTestId('timeline-rate-chart').locator('.recharts-line')).toHaveCount(1);
  // The chart points at its table alternative.
  const described = await page
    .locator('[aria-describedby]')
    .filter({ has: phases })
    .getAttribute('aria-describedby');
  expect(described).toBe(await numbers.getAttribute('id'));
  // Series named with their server; the CPU chart marks its peak and steady levels.
  const cpuChart = page
    .locator('.timeline-series')
    .filter({ hasText: 'consul.server.cpu_pct {server=consul-server-1}' });
  await expect(cpuChart.getByText(`peak ${formatValue(peakCpu, '%')}`)).toBeVisible();
  await expect(cpuChart.getByText(`steady ${formatValue(steadyCpu, '%')}`)).toBeVisible();
  await expect(cpuChart.locator('text', { hasText: /^%$/ })).toHaveCount(1);

  await page.getByTestId('timeline-section').screenshot({ path: artifact('scale-up-numbers.png') });
});
