// The run page's scale-up timeline end to end: a run whose lifecycle events are posted
// through the API (50 nodes joining over a minute, two allocations per node scheduled and
// then running) shows its phases, and the time to 100 % joined computed here by hand.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { apiClient } from '@meshbench/api/demo';
import type { ProbeEvent, Run } from '@meshbench/schema';
import { expect, test } from '@playwright/test';

const artifacts = new URL('../artifacts/', import.meta.url);
const artifact = (name: string) => new URL(name, artifacts).pathname;

const NODES = 50;
const ALLOCS_PER_NODE = 2;
/** Node i joins at 5 s + i × 1.1 s: the last (i = 49) at 5 + 53.9 = 58.9 s. */
const joinMs = (i: number) => 5_000 + i * 1_100;

test.beforeAll(() => {
  mkdirSync(artifacts, { recursive: true });
});

test('a scale-up run shows its lifecycle timeline and time to 100 %', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  const api = apiClient(baseURL as string, process.env.MESHBENCH_ADMIN_TOKEN);
  const start = new Date(Date.UTC(2026, 0, 15, 10, 0, 0));
  const at = (ms: number) => new Date(start.getTime() + ms).toISOString();
  const run: Run = await api.createRun({
    benchmark: 'global-scale',
    scenario: 'scale-up',
    mesh: { name: 'consul', version: '1.9.5' },
    platform: 'nomad',
    topology: { nodes: NODES, instances: NODES * ALLOCS_PER_NODE },
    labels: { source: 'e2e', e2e: randomUUID() },
    startedAt: at(0),
  });

  const events: ProbeEvent[] = [];
  for (let i = 0; i < NODES; i++) {
    const node = `node-${String(i).padStart(2, '0')}`;
    events.push({ type: 'lifecycle', phase: 'joined', entity: node, node, at: at(joinMs(i)) });
    for (let k = 0; k < ALLOCS_PER_NODE; k++) {
      const alloc = `${node}-alloc-${k}`;
      // Scheduled 2 s after the node joined, running 3 s later.
      const scheduled = joinMs(i) + 2_000 + k * 100;
      events.push({
        type: 'lifecycle',
        phase: 'scheduled',
        entity: alloc,
        node,
        at: at(scheduled),
      });
      events.push({
        type: 'lifecycle',
        phase: 'running',
        entity: alloc,
        node,
        at: at(scheduled + 3_000),
      });
    }
  }
  const ingest = await api.postEvents(run.id, events, randomUUID());
  expect(ingest.accepted).toBe(events.length);
  await api.finishRun(run.id, at(90_000));

  await page.goto(`/runs/${run.id}`);
  const section = page.getByTestId('timeline-section');
  await expect(section).toBeVisible();
  await expect(page.getByTestId('run-empty')).toHaveCount(0);
  // Three phases and the pending count (scheduled − running).
  await expect(page.getByTestId('timeline-phases-chart').locator('.recharts-line')).toHaveCount(4);

  // By hand: the 50th node joined at 58.9 s (100 % of the topology's 50 nodes); the 25th
  // (50 %) at 5 + 24 × 1.1 = 31.4 s. The last allocation (node 49, k = 1) ran at
  // 58.9 + 2 + 0.1 + 3 = 64.0 s.
  const joined = page.getByTestId('timeline-phase-joined');
  await expect(joined.getByTestId('time-to-100')).toHaveText('58.9 s');
  await expect(joined.getByTestId('time-to-50')).toHaveText('31.4 s');
  await expect(joined.locator('td').nth(1)).toHaveText('50 / 50');
  const running = page.getByTestId('timeline-phase-running');
  await expect(running.getByTestId('time-to-100')).toHaveText('1 min 04 s');
  await expect(running.locator('td').nth(1)).toHaveText('100 / 100');

  // The tooltip lists every phase at the cursor.
  const chart = page.getByTestId('timeline-phases-chart');
  const box = await chart.boundingBox();
  if (!box) throw new Error('the phases chart has no box');
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  const tooltip = page.getByTestId('timeline-tooltip');
  await expect(tooltip).toContainText('joined');
  await expect(tooltip).toContainText('running');
  await page.mouse.move(box.x + 2, box.y + box.height + 40);

  await page.screenshot({ path: artifact('run-timeline.png'), fullPage: true });

  // Dragging across the chart zooms the time axis; the reset button brings the run back.
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 8 });
  await page.mouse.up();
  const reset = page.getByTestId('timeline-reset-zoom');
  await expect(reset).toBeVisible();
  await reset.click();
  await expect(reset).toHaveCount(0);
});
