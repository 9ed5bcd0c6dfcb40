// The run page's gate: a percentile rule broken by one slow proxy passes as "no significant
// change", with the interval that says why; every proxy slower fails as "regressed".
import { randomUUID } from 'node:crypto';
import { apiClient } from '@meshbench/api/demo';
import { createClient, fetchTransport } from '@meshbench/client';
import type { ProbeEvent } from '@meshbench/schema';
import { expect, test } from '@playwright/test';

const T0 = Date.parse('2026-04-01T10:00:00Z');
const events = (latencies: number[]): ProbeEvent[] => [
  {
    type: 'change',
    id: 'c1',
    kind: 'endpoint',
    target: 'hey',
    action: 'delete',
    at: new Date(T0).toISOString(),
  },
  ...latencies.map(
    (ms, i): ProbeEvent => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      at: new Date(T0 + ms).toISOString(),
    }),
  ),
];
/** 50 proxies at 10, 20 ... 500 ms (times `scale`): P99 is the slowest. */
const tens = (scale = 1) => Array.from({ length: 50 }, (_, i) => Math.round((i + 1) * 10 * scale));

test('the gate says whether a percentile moved beyond noise', async ({ page, baseURL }) => {
  const token = process.env.MESHBENCH_ADMIN_TOKEN;
  const api = apiClient(baseURL as string, token);
  const client = createClient(fetchTransport({ url: baseURL as string, token }));
  const benchmark = `e2e-gate-${randomUUID().slice(0, 8)}`;
  const project = await client.projects.create({ name: benchmark, visibility: 'public' });
  const newRun = async (latencies: number[]) => {
    const run = await api.createRun({
      project: project.id,
      benchmark,
      scenario: 's',
      mesh: { name: 'consul' },
    });
    await api.postEvents(run.id, events(latencies), `gate-${run.id}`);
    await api.finishRun(run.id);
    return run.id;
  };
  const base = await newRun(tens());
  await client.projects.createThreshold(project.id, {
    benchmark,
    rule: 'p99>+10%',
    baseline: base,
  });

  const oneSlow = await newRun([...tens().slice(0, 49), 600]);
  await page.goto(`/runs/${oneSlow}`);
  await expect(page.getByTestId('gate-verdict')).toHaveText('Gate passed');
  await expect(page.getByTestId('gate-significance')).toContainText('no significant change');
  await expect(page.getByTestId('gate-significance')).toContainText('Δ +100 ms, 95 % interval');
  await page.getByTestId('gate-section').screenshot({
    path: new URL('../artifacts/gate-no-significant-change.png', import.meta.url).pathname,
  });

  const slower = await newRun(tens(1.2));
  await page.goto(`/runs/${slower}`);
  await expect(page.getByTestId('gate-verdict')).toHaveText('Gate failed');
  await expect(page.getByTestId('gate-significance')).toContainText('regressed');
  await page.getByTestId('gate-section').screenshot({
    path: new URL('../artifacts/gate-regressed.png', import.meta.url).pathname,
  });
});
