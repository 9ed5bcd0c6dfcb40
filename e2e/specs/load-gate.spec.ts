// The run page's gate on a data-plane rule: each load step with its verdict and why.
import { randomUUID } from 'node:crypto';
import { createClient, fetchTransport } from '@meshbench/client';
import { expect, test } from '@playwright/test';
import { writeHdrLog } from '../../apps/api/src/ingest/results/hdr-log.test-fixtures.ts';

const START = Date.UTC(2026, 10, 26, 12, 0, 0);

test('the gate lists each load step of a data-plane rule with its verdict', async ({
  page,
  baseURL,
}) => {
  const token = process.env.MESHBENCH_ADMIN_TOKEN;
  const client = createClient(fetchTransport({ url: baseURL as string, token }));
  const benchmark = `e2e-load-gate-${randomUUID().slice(0, 8)}`;
  const project = await client.projects.create({ name: benchmark, visibility: 'public' });
  const newRun = async (seed: number, medianUs: number) => {
    const run = await client.runs.create({
      project: project.id,
      benchmark,
      scenario: 's',
      mesh: { name: 'istio' },
      labels: {},
    });
    const log = writeHdrLog({ seed, medianUs, startMs: START, intervals: 10, perInterval: 2000 });
    // The typed client throws unless the API answers 201.
    await client.runs.importResults(run.id, {
      body: log.text,
      query: { mode: 'both', connections: 64, targetRps: 2000 },
    });
    await client.runs.finish(run.id, {});
    return run.id;
  };
  const base = await newRun(1, 2000);
  await client.projects.createThreshold(project.id, {
    benchmark,
    rule: 'load.p99>+10%',
    baseline: base,
  });
  // Every latency 20 % longer.
  const slower = await newRun(2, 2400);
  await page.goto(`/runs/${slower}`);
  await expect(page.getByTestId('gate-verdict')).toHaveText('Gate failed');
  const steps = page.getByTestId('gate-steps');
  await expect(steps).toContainText('both, 64 connections, 2,000 RPS target: regressed');
  await expect(steps).toContainText('95 % interval');
  await page.getByTestId('gate-section').screenshot({
    path: new URL('../artifacts/load-gate-regressed.png', import.meta.url).pathname,
  });
});
