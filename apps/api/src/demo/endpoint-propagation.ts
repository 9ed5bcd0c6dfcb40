// A runner's view of an endpoint-propagation benchmark, shaped like the Consul Global Scale
// Benchmark: one change to an upstream must reach every proxy. It produces the events a
// probe beside each proxy would post; nothing here touches the database.
import type { CreateRunBody, ProbeEvent } from '@meshbench/schema';
import { formatTimestampUs, parseTimestampUs } from '../ingest/timestamps.ts';
import { prng } from './prng.ts';

/**
 * How the control plane delivers a change: Consul coalesces changes in windows, Istio
 * throttles pushes (a ramp over the proxies), Linkerd streams them as they come.
 */
export type DeliveryShape = 'coalesce' | 'throttle' | 'stream';

export interface PropagationScenario {
  seed: number;
  shape: DeliveryShape;
  mesh: { name: string; version: string };
  /** Where the mesh ran: Consul's benchmark on Nomad, Istio's and Linkerd's on Kubernetes. */
  platform: 'nomad' | 'kubernetes';
  nodes: number;
  proxiesPerNode: number;
  /** The change, RFC 3339. */
  t0: string;
  /** Control-plane batching window, ms: proxies that miss one window wait for the next. */
  coalesceMs: number;
  /** Share of nodes that miss the first window. */
  missFirstWindow: number;
  /** Share of nodes hit by a connection problem that delays them by minutes. */
  troubledNodes: number;
  /** Proxies that never apply the change. */
  neverApply: number;
  /** Throttled push: time to push to every node, ms. */
  pushSpanMs?: number;
  /** What delays the troubled nodes, in this mesh's runs. */
  trouble: readonly string[];
  /**
   * One more node, big (this many proxies) and starved of CPU: every proxy on it applies the
   * change later than any other in the run, and no incident or cause says why. The tail's
   * attribution must name it first (issue 15: "the 50 slowest proxies all sit on one node").
   */
  slowNode: { proxies: number };
  /**
   * Whether probes also report when each proxy received the change from the control plane
   * (stage `received`), a few ms to tens of ms before it applied it.
   */
  received?: boolean;
  /**
   * Node clocks that disagree, and what the runner knows of them: each node's clock is off
   * (a few ms, or for `skewed` of the nodes up to 150 ms either way, drifting over the run)
   * and reported at the start and the end of the run, as an offset or as an NTP exchange,
   * except for `unreported` of the nodes. Without it every clock is right.
   */
  clocks?: { seed: number; skewed: number; unreported: number };
}

/** The proxies a scenario expects to apply the change: its nodes' and the slow node's. */
export const scenarioProxies = (s: PropagationScenario) =>
  s.nodes * s.proxiesPerNode + s.slowNode.proxies;

export const consulScenario: PropagationScenario = {
  seed: 20210421,
  shape: 'coalesce',
  mesh: { name: 'consul', version: '1.9.5' },
  platform: 'nomad',
  nodes: 1000,
  proxiesPerNode: 20,
  t0: '2026-02-01T10:00:00.000000Z',
  coalesceMs: 200,
  missFirstWindow: 0.3,
  // 2.5 %, not 3 %, since the slow node's 110 proxies joined the tail: the run still reads as
  // the benchmark's (96.9 % within 1 s, P96 500 ms; the benchmark: 96.6 %, 564.2 ms).
  troubledNodes: 0.025,
  neverApply: 12,
  trouble: ['reconnect', 'retry-backoff', 'tcp-retransmits', 'packet-loss'],
  // Kubernetes' default limit of pods per node.
  slowNode: { proxies: 110 },
  received: true,
  clocks: { seed: 5905, skewed: 0.06, unreported: 0.02 },
};

export const istioScenario: PropagationScenario = {
  ...consulScenario,
  received: false,
  seed: 20210422,
  clocks: undefined,
  shape: 'throttle',
  mesh: { name: 'istio', version: '1.8.2' },
  platform: 'kubernetes',
  t0: '2026-02-01T12:00:00.000000Z',
  pushSpanMs: 1800,
  troubledNodes: 0.012,
  neverApply: 30,
  trouble: ['leader-election', 'tcp-retransmits', 'reconnect'],
};

export const linkerdScenario: PropagationScenario = {
  ...consulScenario,
  received: false,
  seed: 20210423,
  clocks: undefined,
  shape: 'stream',
  mesh: { name: 'linkerd', version: '2.9.2' },
  platform: 'kubernetes',
  t0: '2026-02-01T14:00:00.000000Z',
  troubledNodes: 0.02,
  neverApply: 4,
  trouble: ['packet-loss', 'agent-restart'],
};

/** The same scenario on the three meshes, for the comparison pages. */
export const propagationScenarios = [consulScenario, istioScenario, linkerdScenario] as const;

export interface GeneratedRun {
  run: CreateRunBody;
  events: ProbeEvent[];
}

const RUN_START_MS = -60_000;
const RUN_END_MS = 300_000;

/**
 * Each node's clock: offset (node minus reference, ms) at the run's start and end, drifting
 * linearly between; the clock events a runner would post for it; and a reference time read
 * on a node's clock. Its own PRNG, so the rest of the run is drawn as without it.
 */
function nodeClockModel(
  c: NonNullable<PropagationScenario['clocks']>,
  nodes: number,
  t0Us: number,
) {
  const rnd = prng(c.seed);
  const fmt = (ms: number) => formatTimestampUs(Math.round(t0Us + ms * 1000));
  const offsets = Array.from({ length: nodes }, () => {
    // chrony keeps most nodes within a couple of ms; some are far off (a stopped daemon).
    const start = rnd.chance(c.skewed) ? rnd.uniform(-150, 150) : rnd.uniform(-2, 2);
    return { start, end: start + rnd.uniform(-1.5, 1.5) };
  });
  const offsetAt = (n: number, ms: number) => {
    const o = offsets[n] as { start: number; end: number };
    return o.start + ((o.end - o.start) * (ms - RUN_START_MS)) / (RUN_END_MS - RUN_START_MS);
  };
  const reports: ProbeEvent[] = [];
  for (let n = 0; n < nodes; n++) {
    if (rnd.chance(c.unreported)) continue;
    const node = `node-${String(n).padStart(4, '0')}`;
    for (const ms of [RUN_START_MS + 1000, RUN_END_MS - 1000]) {
      if (n % 2 === 0) {
        // As chrony reports it: the offset and a bound on its error.
        const errorMs = rnd.uniform(0.2, 1.2);
        const offsetMs = offsetAt(n, ms) + rnd.uniform(-errorMs, errorMs);
        reports.push({
          type: 'clock',
          node,
          at: fmt(ms),
          offsetMs: Math.round(offsetMs * 1000) / 1000,
          errorMs: Math.round(errorMs * 1000) / 1000,
        });
      } else {
        // An NTP-style exchange with the runner's reference clock: uneven one-way delays.
        const out = rnd.uniform(0.1, 1);
        const back = rnd.uniform(0.1, 1);
        const t2 = ms + out;
        const t3 = t2 + 0.05;
        reports.push({
          type: 'clock',
          node,
          t1: fmt(ms + offsetAt(n, ms)),
          t2: fmt(t2),
          t3: fmt(t3),
          t4: fmt(t3 + back + offsetAt(n, t3 + back)),
        });
      }
    }
  }
  return {
    reports,
    nodeTime: (n: number, ms: number) => fmt(ms + offsetAt(n, ms)),
  };
}

export function endpointPropagationRun(s: PropagationScenario): GeneratedRun {
  const rnd = prng(s.seed);
  const t0 = parseTimestampUs(s.t0) as number;
  const at = (ms: number) => formatTimestampUs(Math.round(t0 + ms * 1000));
  const proxies = scenarioProxies(s);
  const changeId = 'hey-endpoint-delete';
  const events: ProbeEvent[] = [
    {
      type: 'change',
      id: changeId,
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: s.t0,
      expected: proxies,
    },
  ];
  // Received-to-applied gaps draw from a stream of their own: the rest of the run stays as
  // it was without them.
  const gapRnd = prng(s.seed + 1);
  const received: ProbeEvent[] = [];
  const clocks = s.clocks ? nodeClockModel(s.clocks, s.nodes, t0) : undefined;
  if (clocks) events.push(...clocks.reports);
  // The proxies that never converge sit on a node whose agent restarted and stayed down.
  const deadNode = Math.floor(rnd.next() * s.nodes);
  let neverLeft = s.neverApply;
  for (let n = 0; n < s.nodes; n++) {
    const node = `node-${String(n).padStart(4, '0')}`;
    const az = `us-east-1${'abc'[n % 3]}`;
    // The node hears of the change after network delay, then as its mesh delivers it.
    const heard = rnd.logNormal(s.shape === 'stream' ? 22 : 45, 0.5);
    const delivery =
      s.shape === 'coalesce'
        ? rnd.chance(s.missFirstWindow)
          ? s.coalesceMs
          : 0
        : s.shape === 'throttle'
          ? rnd.uniform(0, s.pushSpanMs ?? 1000)
          : rnd.logNormal(8, 0.8);
    const loaded = rnd.chance(0.04) ? rnd.uniform(150, 500) : 0;
    const troubled = rnd.chance(s.troubledNodes);
    let delayMs = heard + delivery + loaded;
    if (troubled) {
      const kind = rnd.pick(s.trouble);
      const outage = rnd.uniform(20_000, 240_000);
      const start = rnd.uniform(0, 300);
      events.push({
        type: 'incident',
        kind,
        node,
        from: at(start),
        to: at(start + outage),
        attrs: { az },
      });
      delayMs = start + outage + rnd.uniform(50, 2_000);
    }
    if (n === deadNode) {
      events.push({ type: 'incident', kind: 'agent-restart', node, from: at(120), attrs: { az } });
    }
    for (let p = 0; p < s.proxiesPerNode; p++) {
      const proxy = `${node}-svc${String(p).padStart(2, '0')}-sidecar`;
      if (n === deadNode && neverLeft > 0) {
        neverLeft--;
        continue;
      }
      // Each proxy applies what its agent pushed after a few ms of its own.
      let latency = delayMs + rnd.logNormal(4, 0.6);
      // A probe whose host clock runs behind reports an application before the change (drawn
      // either way, so the rest of the run is the same; with a clock model, skew comes from it).
      if (!troubled && rnd.chance(0.0002)) {
        const behind = -rnd.uniform(1, 15);
        if (!clocks) latency = behind;
      }
      const slowWithoutIncident = !troubled && rnd.chance(0.0015);
      if (slowWithoutIncident) latency += rnd.uniform(5_000, 60_000);
      events.push({
        type: 'observation',
        change: changeId,
        proxy,
        node,
        at: clocks ? clocks.nodeTime(n, latency) : at(latency),
        // Some probes know why they were late and say so; the rest is left to incidents.
        ...(troubled && rnd.chance(0.4) ? { cause: 'reconnect-backoff' } : {}),
        attrs: { az },
      });
      // Probes that re-deliver after a timeout report the same application twice.
      if (rnd.chance(0.002)) {
        events.push({
          type: 'observation',
          change: changeId,
          proxy,
          node,
          at: clocks
            ? clocks.nodeTime(n, latency + rnd.uniform(1, 500))
            : at(latency + rnd.uniform(1, 500)),
        });
      }
      if (s.received) {
        // Applying takes a few ms to tens of ms after receiving; a few proxies on the troubled
        // nodes take seconds (the config rebuilt while the proxy catches up after its
        // reconnect). Nothing is received before the change, bar a clock that runs behind.
        const slowApply = gapRnd.chance(0.05);
        let gap = gapRnd.logNormal(6, 0.7);
        if (troubled && slowApply) gap = gapRnd.uniform(800, 4_000);
        if (latency > 0) gap = Math.min(gap, latency / 2);
        received.push({
          type: 'observation',
          change: changeId,
          proxy,
          node,
          at: clocks ? clocks.nodeTime(n, latency - gap) : at(latency - gap),
          stage: 'received',
        });
      }
    }
  }
  // The slow node comes last, with its own draws, so that every other node's are unchanged.
  const slow = prng(s.seed ^ 0x5105);
  const slowReceived = prng(s.seed ^ 0x5106);
  const slowNode = `node-${String(s.nodes).padStart(4, '0')}`;
  for (let p = 0; p < s.slowNode.proxies; p++) {
    events.push({
      type: 'observation',
      change: changeId,
      proxy: `${slowNode}-svc${String(p).padStart(3, '0')}-sidecar`,
      node: slowNode,
      // After the longest outage of a troubled node (300 ms + 240 s + 2 s) and before the end.
      at: at(slow.uniform(250_000, 295_000)),
      attrs: { az: `us-east-1${'abc'[s.nodes % 3]}` },
    });
    // It received the change as promptly as any node: received is not applied.
    if (s.received) {
      received.push({
        type: 'observation',
        change: changeId,
        proxy: `${slowNode}-svc${String(p).padStart(3, '0')}-sidecar`,
        node: slowNode,
        at: at(slowReceived.uniform(30, 120)),
        stage: 'received',
      });
    }
  }
  // Sent after the applied ones: a probe beside the control plane's stream reports them.
  events.push(...received);
  const lastMs = RUN_END_MS;
  return {
    run: {
      benchmark: 'global-scale',
      scenario: 'endpoint-propagation',
      mesh: s.mesh,
      platform: s.platform,
      topology: {
        nodes: s.nodes + 1,
        services: s.proxiesPerNode,
        instances: proxies,
        servers: 5,
      },
      environment: 'demo',
      labels: { source: 'demo', branch: 'main', seed: String(s.seed) },
      startedAt: at(RUN_START_MS),
      finishedAt: at(lastMs),
    },
    events,
  };
}
