// Every kind of page the demo shows, with its data posted through the API as a runner would
// (the demo's own generators, under a benchmark name no other spec uses): the page specs for
// accessibility, the 700 px layout and print walk this list.
import { randomUUID } from 'node:crypto';
import {
  apiClient,
  churnRun,
  consulScaleUp,
  dataPlaneMeshes,
  dataPlaneRun,
  endpointPropagationRun,
  fortioResult,
  istioChurnScenario,
  NIGHTLY_MESHES,
  nightlyRun,
  propagationScenarios,
  scaleUpRun,
  sendOtlp,
} from '@meshbench/api/demo';
import type { Run } from '@meshbench/schema';
import { apiReads } from './api-reads.ts';

export interface DemoPage {
  name: string;
  path: string;
}

const posted = new Map<string, Promise<DemoPage[]>>();

/**
 * Posts a small demo once per server and worker, and returns the pages that show it, the
 * report's slug among them. The specs that walk the pages (accessibility, layout and print,
 * URL state) only read them, so they share one posting; a new worker (after a failure) posts
 * its own.
 */
export function postDemoPages(baseUrl: string): Promise<DemoPage[]> {
  let pages = posted.get(baseUrl);
  if (!pages) {
    pages = postDemo(baseUrl);
    posted.set(baseUrl, pages);
    // A failed posting is not kept: the next spec tries again.
    pages.catch(() => posted.delete(baseUrl));
  }
  return pages;
}

async function postDemo(baseUrl: string): Promise<DemoPage[]> {
  const token = process.env.MESHBENCH_ADMIN_TOKEN;
  const api = apiClient(baseUrl, token);
  const tag = randomUUID().slice(0, 8);
  const benchmark = `e2e-pages-${tag}`;
  const labels = { source: 'e2e', e2e: tag };

  const propagation: Run[] = [];
  for (const scenario of propagationScenarios) {
    const { run, events } = endpointPropagationRun(scenario);
    const { finishedAt, ...body } = run;
    const created = await api.createRun({
      ...body,
      benchmark,
      labels: { ...body.labels, ...labels },
    });
    await api.postEvents(created.id, events, `${benchmark}-${scenario.seed}`);
    propagation.push(await api.finishRun(created.id, finishedAt));
  }

  const mesh = dataPlaneMeshes[0];
  if (!mesh) throw new Error('no data-plane mesh in the demo');
  const { run: dpBody, start } = dataPlaneRun(mesh);
  const { finishedAt: dpEnd, ...dpStart } = dpBody;
  const dp = await api.createRun({
    ...dpStart,
    benchmark,
    labels: { ...dpStart.labels, ...labels },
  });
  let minute = 0;
  for (const mode of ['baseline', 'both'] as const) {
    for (const connections of [2, 16, 64]) {
      const at = new Date(start.getTime() + minute++ * 60_000);
      await api.postResults(dp.id, fortioResult(mesh, mode, connections, at), 'fortio');
    }
  }
  await api.finishRun(dp.id, dpEnd);

  const scale = scaleUpRun(consulScaleUp);
  const { finishedAt: scaleEnd, ...scaleStart } = scale.run;
  const scaleRun = await api.createRun({
    ...scaleStart,
    benchmark,
    labels: { ...scaleStart.labels, ...labels },
  });
  await api.postEvents(scaleRun.id, scale.events, `${benchmark}-scale`);
  await sendOtlp(baseUrl, scale.otlp(scaleRun.id), token);
  await api.finishRun(scaleRun.id, scaleEnd);

  const nightly = NIGHTLY_MESHES[0];
  for (let night = 0; night < 4; night++) {
    const { run, events } = nightlyRun(nightly, night);
    const { finishedAt, ...body } = run;
    const created = await api.createRun({
      ...body,
      benchmark,
      labels: { ...body.labels, ...labels },
    });
    await api.postEvents(created.id, events, `${benchmark}-night-${night}`);
    await api.finishRun(created.id, finishedAt);
  }

  // A step in P99 over nine nights of one small series: a change point kept as an alert.
  const T0 = Date.parse('2026-03-01T10:00:00Z');
  for (const [night, offset] of [0, 1, 0, 2, 1, 0, 50, 51, 50].entries()) {
    const at = (ms: number) => new Date(T0 + night * 86_400_000 + ms).toISOString();
    const created = await api.createRun({
      benchmark,
      scenario: 'alerted-propagation',
      mesh: { name: 'consul', version: '1.9.5' },
      labels: { ...labels, branch: 'main' },
      startedAt: at(0),
    });
    await api.postEvents(
      created.id,
      [
        { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', at: at(0) },
        ...Array.from({ length: 100 }, (_, i) => ({
          type: 'observation' as const,
          change: 'c1',
          proxy: `p${i}`,
          at: at(i + 1 + offset),
        })),
      ],
      `${benchmark}-alerted-${night}`,
    );
    await api.finishRun(created.id, at(3_600_000));
  }

  // Churn: the demo's run of many endpoint changes, and a report of it.
  const churn = churnRun(istioChurnScenario);
  const { finishedAt: churnEnd, ...churnStart } = churn.run;
  const churned = await api.createRun({
    ...churnStart,
    benchmark,
    labels: { ...churnStart.labels, ...labels },
  });
  await api.postEvents(churned.id, churn.events, `${benchmark}-churn`);
  await api.finishRun(churned.id, churnEnd);
  const reports = apiReads(baseUrl, token).reports;
  const { slug: churnSlug } = await reports.create({ runs: [churned.id], title: 'Endpoint churn' });

  const ids = propagation.map((r) => r.id);
  const report = await reports.create({ runs: ids, title: 'Endpoint propagation on three meshes' });

  return [
    { name: 'runs list', path: `/?benchmark=${benchmark}` },
    { name: 'propagation run', path: `/runs/${ids[0]}` },
    { name: 'scale-up run', path: `/runs/${scaleRun.id}` },
    { name: 'data-plane run', path: `/runs/${dp.id}` },
    { name: 'compare', path: `/compare?runs=${ids.join(',')}` },
    { name: 'history', path: `/history?benchmark=${benchmark}` },
    { name: 'alerts', path: `/alerts?project=default&state=all&benchmark=${benchmark}` },
    { name: 'report', path: `/r/${report.slug}` },
    { name: 'churn run', path: `/runs/${churned.id}` },
    { name: 'churn report', path: `/r/${churnSlug}` },
    { name: 'ingest', path: '/ingest' },
  ];
}
