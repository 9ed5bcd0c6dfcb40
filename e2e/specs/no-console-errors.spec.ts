// Every page, as a person opens it: no console error, no failed request, and a document title
// of its own. The runs are one of each kind the demo has (propagation, scale-up, data plane),
// made here small, and a shared report of two.
import { randomUUID } from 'node:crypto';
import { apiClient, dataPlaneMeshes, fortioResult } from '@meshbench/api/demo';
import type { ProbeEvent } from '@meshbench/schema';
import { expect, type Page, test } from '@playwright/test';
import { apiReads } from './api-reads.ts';

const T0 = Date.parse('2026-03-03T10:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

/** Watches a page for what a person would see as broken: console errors and failed requests. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
  });
  return problems;
}

test('no page logs an error or fails a request, and each names itself', async ({
  context,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const benchmark = `e2e-pages-${randomUUID().slice(0, 8)}`;

  const prop = [];
  for (const [i, mesh] of ['consul', 'istio'].entries()) {
    const run = await api.createRun({
      benchmark,
      scenario: 'endpoint-propagation',
      mesh: { name: mesh, version: '1.0.0' },
      labels: { branch: 'main' },
      startedAt: iso(i * 60_000),
    });
    const events: ProbeEvent[] = [
      { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', at: iso(0) },
      ...[50, 120, 300, 900, 2500].map(
        (ms, k): ProbeEvent => ({
          type: 'observation',
          change: 'c1',
          proxy: `p${k}`,
          node: `n${k}`,
          at: iso(ms + i * 10),
        }),
      ),
    ];
    await api.postEvents(run.id, events, `pages-${run.id}`);
    prop.push(await api.finishRun(run.id, iso(600_000)));
  }

  const scaleUp = await api.createRun({
    benchmark: `${benchmark}-scale`,
    scenario: 'scale-up',
    mesh: { name: 'consul', version: '1.9.5' },
    platform: 'nomad',
    topology: { nodes: 4 },
    startedAt: iso(0),
  });
  await api.postEvents(
    scaleUp.id,
    [0, 1, 2, 3].map(
      (k): ProbeEvent => ({
        type: 'lifecycle',
        phase: 'joined',
        entity: `node-${k}`,
        node: `node-${k}`,
        at: iso((k + 1) * 5_000),
      }),
    ),
    `pages-scale-${scaleUp.id}`,
  );
  await api.finishRun(scaleUp.id, iso(60_000));

  const mesh = dataPlaneMeshes[0];
  if (!mesh) throw new Error('the demo has no data-plane mesh');
  const dataPlane = await api.createRun({
    benchmark: `${benchmark}-dp`,
    scenario: 'latency-vs-connections',
    mesh: { name: mesh.name, version: mesh.version },
    startedAt: iso(0),
  });
  await api.postResults(dataPlane.id, fortioResult(mesh, 'both', 16, new Date(T0)));
  await api.finishRun(dataPlane.id, iso(120_000));

  const { slug } = await apiReads(baseURL, process.env.MESHBENCH_ADMIN_TOKEN).reports.create({
    runs: prop.map((r) => r.id),
    title: 'consul vs istio',
  });

  const pages: { path: string; ready: string; title: RegExp }[] = [
    { path: '/', ready: '[data-testid="run-row"]', title: /^Runs · meshbench$/ },
    {
      path: `/runs/${prop[0]?.id}`,
      ready: '[data-testid="percentile-table"]',
      title: /^consul 1\.0\.0 · .+ · meshbench$/,
    },
    { path: `/runs/${scaleUp.id}`, ready: 'h1', title: /^consul 1\.9\.5 · .+ · meshbench$/ },
    { path: `/runs/${dataPlane.id}`, ready: 'h1', title: new RegExp(`^${mesh.name} `) },
    {
      path: `/compare?runs=${prop.map((r) => r.id).join(',')}`,
      ready: '[data-testid="delta-table"]',
      title: /^Compare consul 1\.0\.0 vs istio 1\.0\.0 · meshbench$/,
    },
    { path: `/history?benchmark=${benchmark}`, ready: 'h1', title: /^History of .+ · meshbench$/ },
    { path: `/r/${slug}`, ready: 'h1', title: /^consul vs istio · meshbench$/ },
    { path: '/ingest', ready: 'h1', title: /^Ingest · meshbench$/ },
  ];
  const titles = new Set<string>();
  for (const { path, ready, title } of pages) {
    // A page of its own each: a fresh load, as from a link.
    const page = await context.newPage();
    const problems = watch(page);
    await page.goto(path);
    await page.locator(ready).first().waitFor();
    await page.waitForLoadState('networkidle');
    await expect(page, path).toHaveTitle(title);
    titles.add(await page.title());
    expect(problems, `${path}: ${problems.join('\n')}`).toEqual([]);
    await page.close();
  }
  expect(titles.size, 'every page has a title of its own').toBe(pages.length);
});
