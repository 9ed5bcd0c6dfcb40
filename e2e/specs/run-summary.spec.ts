// Each kind of run heads its page, its row of the runs list and its card in compare with one
// sentence (apps/web/src/ui/run-summary.ts). The sentences expected here are built from other
// answers of the API than the headline the page reads (the change's propagation, the run's
// results and stages) and from the events posted, so a wrong headline number fails too.
import { randomUUID } from 'node:crypto';
import {
  apiClient,
  consulScaleUp,
  dataPlaneMeshes,
  dataPlaneRun,
  endpointPropagationRun,
  fortioResult,
  loadStages,
  propagationScenarios,
  scaleUpRun,
} from '@meshbench/api/demo';
import type { LoadStages, Propagation, StoredLoadResult } from '@meshbench/schema';
import {
  formatCount,
  formatDurationDelta,
  formatDurationMs,
  formatElapsed,
  formatPercent,
} from '@meshbench/web/format';
import { expect, type Page, test } from '@playwright/test';

const sig3 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

async function getJson<T>(baseURL: string, path: string): Promise<T> {
  const res = await fetch(`${baseURL}/api/v1${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

async function expectRunPage(page: Page, runId: string, sentence: string) {
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId('run-summary')).toHaveText(sentence);
}

test('each kind of run is summed up in one sentence from the API numbers', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const base = baseURL as string;
  const api = apiClient(base, process.env.MESHBENCH_ADMIN_TOKEN);
  const benchmark = `e2e-summary-${randomUUID().slice(0, 8)}`;
  const ids: string[] = [];

  // Propagation: Consul's endpoint change.
  const scenario = propagationScenarios[0];
  const gen = endpointPropagationRun(scenario);
  const { finishedAt, ...body } = gen.run;
  const prop = await api.createRun({ ...body, benchmark });
  await api.postEvents(prop.id, gen.events, `${benchmark}-prop`);
  await api.finishRun(prop.id, finishedAt);
  ids.push(prop.id);
  const changeId = 'hey-endpoint-delete';
  const p = await getJson<Propagation>(
    base,
    `/runs/${prop.id}/changes/${changeId}/propagation?percentiles=50,99&withinMs=1000`,
  );
  const at = (q: number) => p.percentiles.find((x) => x.p === q);
  // Raw observations: exact, so no mark.
  expect(at(50)?.exact).toBe(true);
  const propSentence = `${formatCount(p.count)} of ${formatCount(p.expected)} proxies in ${formatDurationMs(p.maxMs)}; P50 ${formatDurationMs(at(50)?.ms)}, P99 ${formatDurationMs(at(99)?.ms)}; ${formatPercent(p.withinFraction)} within 1 s`;
  await expectRunPage(page, prop.id, propSentence);

  // Scale-up: Consul's 1,000 nodes joining; the figures from the events posted.
  const scale = scaleUpRun(consulScaleUp);
  const { finishedAt: scaleEnd, ...scaleStart } = scale.run;
  const scaleRun = await api.createRun({ ...scaleStart, benchmark });
  await api.postEvents(scaleRun.id, scale.events, `${benchmark}-scale`);
  await api.finishRun(scaleRun.id, scaleEnd);
  ids.push(scaleRun.id);
  const t0 = Date.parse(scaleStart.startedAt as string);
  const joins = scale.events
    .filter((e) => e.type === 'lifecycle' && e.phase === 'joined')
    .map((e) => Date.parse((e as { at: string }).at));
  const lastMs = Math.max(...joins) - t0;
  const perSecond = new Map<number, number>();
  for (const j of joins) {
    const s = Math.floor((j - t0) / 1000);
    perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
  }
  const peak = Math.max(...perSecond.values());
  const scaleSentence = `${formatCount(joins.length)} nodes joined in ${formatElapsed(lastMs)} (${sig3.format(joins.length / (lastMs / 1000))}/s mean, ${formatCount(peak)}/s peak)`;
  await expectRunPage(page, scaleRun.id, scaleSentence);

  // Data plane: baseline and both sidecars at 1,000 RPS and 16 connections (Fortio files).
  const mesh = dataPlaneMeshes[0];
  if (!mesh) throw new Error('no data-plane mesh in the demo');
  const { run: dpBody, start } = dataPlaneRun(mesh);
  const { finishedAt: dpEnd, ...dpStart } = dpBody;
  const dp = await api.createRun({ ...dpStart, benchmark });
  await api.postResults(dp.id, fortioResult(mesh, 'baseline', 16, start), 'fortio');
  await api.postResults(
    dp.id,
    fortioResult(mesh, 'both', 16, new Date(start.getTime() + 60_000)),
    'fortio',
  );
  await api.finishRun(dp.id, dpEnd);
  ids.push(dp.id);
  const points = await getJson<StoredLoadResult[]>(base, `/runs/${dp.id}/results`);
  const ms = (mode: string, q: number) => {
    const v = points.find((x) => x.mode === mode)?.percentiles.find((x) => x.p === q);
    if (!v) throw new Error(`no P${q} for ${mode}`);
    return v;
  };
  const delta = (q: number) => {
    const a = ms('both', q);
    const b = ms('baseline', q);
    return `${a.exact && b.exact ? '' : '~'}${formatDurationDelta(a.ms - b.ms)}`;
  };
  const target = points[0]?.targetRps as number;
  const dpSentence = `${delta(50)} P50, ${delta(99)} P99 over the baseline at ${formatCount(target)} RPS and 16 connections (both)`;
  await expectRunPage(page, dp.id, dpSentence);

  // Stages: Istio's 500k test, its intervals counted here from GET .../results/stages.
  const stagesRun = await loadStages({ baseUrl: base, token: process.env.MESHBENCH_ADMIN_TOKEN });
  const view = await getJson<LoadStages>(base, `/runs/${stagesRun.id}/results/stages`);
  let intervals = 0;
  let under = 0;
  let estimated = false;
  for (const slot of view.series) {
    const p50 = slot.percentiles.find((x) => x.p === 50);
    const p99 = slot.percentiles.find((x) => x.p === 99);
    if (!p50 || !p99) continue;
    intervals++;
    if (p99.ms < 5 * p50.ms) under++;
    estimated ||= !p50.accuracy.exact || !p99.accuracy.exact;
  }
  const top = [...view.stages].sort((a, b) => (b.targetRps ?? 0) - (a.targetRps ?? 0))[0];
  if (!top?.targetRps || !top.achievedRps) throw new Error('no top stage');
  expect(top.achievedRps).toBeGreaterThanOrEqual(0.95 * top.targetRps);
  const achieved =
    Math.round(top.achievedRps) < top.targetRps
      ? ` (${formatCount(top.achievedRps)} achieved)`
      : '';
  const stagesSentence = `${formatCount(top.targetRps)} RPS held${achieved}, P99 under 5x median in ${estimated ? '~' : ''}${formatCount(under)} of ${formatCount(intervals)} seconds`;
  expect(view.intervalMs).toBe(1000);
  await expectRunPage(page, stagesRun.id, stagesSentence);

  // The runs list says the same, row by row.
  await page.goto(`/?benchmark=${benchmark}`);
  const rows = page.getByTestId('run-row');
  await expect(rows).toHaveCount(3);
  for (const [id, sentence] of [
    [prop.id, propSentence],
    [scaleRun.id, scaleSentence],
    [dp.id, dpSentence],
  ] as const) {
    const row = page.locator(`[data-testid=run-row][data-run-id="${id}"]`);
    await expect(row.locator('.headline-number')).toHaveText(sentence);
  }

  // Compare heads each run's card with it.
  await page.goto(`/compare?runs=${prop.id},${dp.id}`);
  const cards = page.getByTestId('run-card');
  await expect(cards.nth(0).getByTestId('run-summary')).toHaveText(propSentence);
  await expect(cards.nth(1).getByTestId('run-summary')).toHaveText(dpSentence);
});
