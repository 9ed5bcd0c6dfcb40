// A churn test's events: many endpoint changes a few seconds apart, each observed by every
// proxy, as a probe beside each proxy would post them. While the control plane falls behind
// for a few changes, a slow tail grows and then drains, which the run's heatmap shows.
import type { ProbeEvent } from '@meshbench/schema';
import { formatTimestampUs, parseTimestampUs } from '../ingest/timestamps.ts';
import type { GeneratedRun } from './endpoint-propagation.ts';
import { prng } from './prng.ts';

export interface ChurnScenario {
  seed: number;
  mesh: { name: string; version: string };
  nodes: number;
  proxiesPerNode: number;
  /** The first change, RFC 3339. */
  t0: string;
  changes: number;
  /** Time between two changes, ms. */
  everyMs: number;
  /** Throttled push: time to push one change to every node, ms. */
  pushSpanMs: number;
  /** The changes (0-based) during which the control plane falls behind, and by how much. */
  backlog: { from: number; to: number; slowShare: number; extraMs: number };
}

export const istioChurnScenario: ChurnScenario = {
  seed: 20210424,
  mesh: { name: 'istio', version: '1.8.2' },
  nodes: 50,
  proxiesPerNode: 20,
  t0: '2026-02-01T16:00:00.000000Z',
  changes: 20,
  everyMs: 5000,
  pushSpanMs: 900,
  // Changes 9 to 13: a growing share of proxies waits a growing extra time, then it drains.
  backlog: { from: 8, to: 12, slowShare: 0.04, extraMs: 1500 },
};

/** How far into its backlog change k is: 0 outside, 1..n inside, growing. */
const backlogStep = (s: ChurnScenario, k: number) =>
  k >= s.backlog.from && k <= s.backlog.to ? k - s.backlog.from + 1 : 0;

export function churnRun(s: ChurnScenario): GeneratedRun {
  const rnd = prng(s.seed);
  const t0 = parseTimestampUs(s.t0) as number;
  const at = (ms: number) => formatTimestampUs(Math.round(t0 + ms * 1000));
  const proxies = s.nodes * s.proxiesPerNode;
  const events: ProbeEvent[] = [];
  for (let k = 0; k < s.changes; k++) {
    const changeId = `churn-${String(k + 1).padStart(2, '0')}`;
    const changeMs = k * s.everyMs;
    events.push({
      type: 'change',
      id: changeId,
      kind: 'endpoint',
      target: `svc-${String(k % 7).padStart(2, '0')}`,
      action: k % 2 === 0 ? 'add' : 'delete',
      at: at(changeMs),
      expected: proxies,
    });
    const step = backlogStep(s, k);
    for (let n = 0; n < s.nodes; n++) {
      const node = `node-${String(n).padStart(3, '0')}`;
      // Each node hears of the change after network delay and its place in the throttled push.
      const nodeMs = rnd.logNormal(40, 0.5) + rnd.uniform(0, s.pushSpanMs);
      for (let p = 0; p < s.proxiesPerNode; p++) {
        let latency = nodeMs + rnd.logNormal(4, 0.6);
        // Behind, the control plane delays a growing share of the proxies by a growing time.
        if (step > 0 && rnd.chance(s.backlog.slowShare * step))
          latency += rnd.uniform(0.5, 1) * s.backlog.extraMs * step;
        events.push({
          type: 'observation',
          change: changeId,
          proxy: `${node}-svc${String(p).padStart(2, '0')}-sidecar`,
          node,
          at: at(changeMs + latency),
        });
      }
    }
  }
  const lastMs = s.changes * s.everyMs + 30_000;
  return {
    run: {
      benchmark: 'endpoint-churn',
      scenario: `${s.changes}-changes-every-${s.everyMs / 1000}s`,
      mesh: s.mesh,
      platform: 'kubernetes',
      topology: { nodes: s.nodes, services: s.proxiesPerNode, instances: proxies, servers: 1 },
      environment: 'demo',
      labels: { source: 'demo', branch: 'main', seed: String(s.seed) },
      startedAt: at(-30_000),
      finishedAt: at(lastMs),
    },
    events,
  };
}
