// A runner's view of a scale-up, shaped like the Consul Global Scale Benchmark's: 1,000
// nodes join after a random delay over ten minutes, register their services and get
// allocations scheduled, then running; the control plane's CPU rises while it scales and
// falls after. Two runs of it, 1.9.5 and 1.10.0 with streaming (faster joins, a lighter
// server), so the compare page has timelines to align. Lifecycle events go through the events API, the control plane's own
// metrics as StatsD over UDP and as OTLP from the OpenTelemetry SDK's exporter, every
// sample stamped inside the run's window so the demo is the same on every start.
import { createSocket } from 'node:dgram';
import type { CreateRunBody, ProbeEvent, Run } from '@meshbench/schema';
import { type HrTime, ValueType } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { apiClient } from './client.ts';
import { prng } from './prng.ts';

export interface ScaleUpScenario {
  seed: number;
  nodes: number;
  /** Service instances (and allocations) per node. */
  perNode: number;
  /** Joins spread over this span after the start, ms. */
  joinSpanMs: number;
  /** The run: scaling, then quiet until this long after the start, ms. */
  durationMs: number;
  start: string;
  version: string;
  branch: string;
  /** How far the servers' CPU rises above its 5 % floor at the busiest moment, %. */
  cpuRise: number;
}

export const consulScaleUp: ScaleUpScenario = {
  seed: 20210510,
  nodes: 1000,
  perNode: 3,
  joinSpanMs: 540_000,
  durationMs: 900_000,
  start: '2026-02-02T09:00:00.000Z',
  version: '1.9.5',
  branch: 'main',
  cpuRise: 38,
};

/** The same scale-up on Consul 1.10 with streaming: joins over six minutes, less CPU. */
export const consulStreamingScaleUp: ScaleUpScenario = {
  seed: 20210622,
  nodes: 1000,
  perNode: 3,
  joinSpanMs: 360_000,
  durationMs: 900_000,
  start: '2026-02-03T09:00:00.000Z',
  version: '1.10.0',
  branch: 'streaming',
  cpuRise: 22,
};

export const scaleUpScenarios = [consulScaleUp, consulStreamingScaleUp];

export interface ScaleUpData {
  run: CreateRunBody;
  events: ProbeEvent[];
  /** StatsD lines, each with its |T timestamp; the run tag is added when sending. */
  statsdLines: (runRef: string) => string[];
  /** OTLP data as the SDK hands it to its exporter, with explicit point times. */
  otlp: (runRef: string) => ResourceMetrics;
}

const hr = (ms: number): HrTime => [Math.floor(ms / 1000), (ms % 1000) * 1e6];

export function scaleUpRun(s: ScaleUpScenario): ScaleUpData {
  const rnd = prng(s.seed);
  const t0 = Date.parse(s.start);
  const iso = (ms: number) => new Date(t0 + ms).toISOString();
  const events: ProbeEvent[] = [];
  const joins: number[] = [];
  const running: number[] = [];
  for (let n = 0; n < s.nodes; n++) {
    const node = `node-${String(n).padStart(4, '0')}`;
    // A random join delay, denser early on as the autoscaler ramps up.
    const joinMs = Math.round(5_000 + s.joinSpanMs * rnd.next() ** 1.3);
    joins.push(joinMs);
    events.push({ type: 'lifecycle', phase: 'joined', entity: node, node, at: iso(joinMs) });
    for (let k = 0; k < s.perNode; k++) {
      const alloc = `${node}-alloc-${k}`;
      const registered = joinMs + rnd.logNormal(1_500, 0.5);
      events.push({
        type: 'lifecycle',
        phase: 'registered',
        entity: alloc,
        node,
        at: iso(registered),
      });
      const scheduled = joinMs + rnd.uniform(1_000, 20_000);
      events.push({
        type: 'lifecycle',
        phase: 'scheduled',
        entity: alloc,
        node,
        at: iso(scheduled),
      });
      // A few placements never start (image pull failures): running stays short of 100 %.
      if (rnd.chance(0.004)) continue;
      const run = scheduled + rnd.logNormal(8_000, 0.6);
      running.push(run);
      events.push({ type: 'lifecycle', phase: 'running', entity: alloc, node, at: iso(run) });
    }
  }
  joins.sort((a, b) => a - b);
  running.sort((a, b) => a - b);
  const seconds = Math.floor(s.durationMs / 1000);
  const perSecond = (times: number[]) => {
    const out = new Array<number>(seconds).fill(0);
    for (const t of times) {
      const i = Math.floor(t / 1000);
      if (i >= 0 && i < seconds) out[i] = (out[i] as number) + 1;
    }
    return out;
  };
  const joinRate = perSecond(joins);
  const runRate = perSecond(running);
  // Activity: joins over the last 30 s against the busiest 30 s.
  const recent = joinRate.map((_, i) =>
    joinRate.slice(Math.max(0, i - 29), i + 1).reduce((a, b) => a + b, 0),
  );
  const peak = Math.max(...recent, 1);
  const joinedBy = (i: number) => joinRate.slice(0, i + 1).reduce((a, b) => a + b, 0);

  const metricsRnd = prng(s.seed + 1);
  const cpu: number[] = [];
  const memory: number[] = [];
  const pushes: number[] = [];
  const pushLatency: number[][] = [];
  let joined = 0;
  for (let i = 0; i < seconds; i++) {
    joined += joinRate[i] as number;
    const activity = (recent[i] as number) / peak;
    cpu.push(Math.max(1, 5 + s.cpuRise * activity + metricsRnd.uniform(-2, 2)));
    memory.push(310 + 0.85 * joined + metricsRnd.uniform(-3, 3));
    pushes.push((runRate[i] as number) * 4 + metricsRnd.int(0, 2));
    pushLatency.push(
      Array.from({ length: 4 }, () => metricsRnd.logNormal(35 + 120 * activity, 0.45)),
    );
  }

  const statsdLines = (runRef: string) => {
    const lines: string[] = [];
    for (let i = 0; i < seconds; i++) {
      const tags = `#run:${runRef},server:consul-server-1,dc:dc1`;
      const ts = `|T${Math.floor(t0 / 1000) + i}`;
      lines.push(`consul.server.cpu_pct:${(cpu[i] as number).toFixed(2)}|g|${tags}${ts}`);
      lines.push(`consul.server.memory_mb:${(memory[i] as number).toFixed(1)}|g|${tags}${ts}`);
      lines.push(`consul.xds.pushes:${pushes[i]}|c|${tags}${ts}`);
      lines.push(
        `consul.xds.push_ms:${(pushLatency[i] as number[]).map((v) => v.toFixed(2)).join(':')}|ms|${tags}${ts}`,
      );
    }
    return lines;
  };

  const otlp = (runRef: string): ResourceMetrics => {
    const startMs = t0 + 1_000;
    const step = 10_000;
    const streams: number[] = [];
    const registrations: number[] = [];
    const commit: { count: number; sum: number; counts: number[]; min: number; max: number }[] = [];
    const bounds = [1, 2, 5, 10, 25, 50, 100, 250];
    // The same commit times also in exponential buckets, as an SDK with the exponential
    // aggregation records them: bucket i holds (2^(i/16), 2^((i+1)/16)] at scale 4.
    const scale = 4;
    const exponential: { offset: number; bucketCounts: number[] }[] = [];
    const otlpRnd = prng(s.seed + 2);
    let registered = 0;
    for (let ms = step; ms < s.durationMs; ms += step) {
      const i = Math.floor(ms / 1000);
      streams.push(running.filter((t) => t <= ms).length);
      registered += joinedBy(i) * s.perNode - registered;
      registrations.push(registered);
      const activity = (recent[i] as number) / peak;
      const counts = new Array<number>(bounds.length + 1).fill(0);
      let sum = 0;
      let min = Number.POSITIVE_INFINITY;
      let max = 0;
      const n = 50 + Math.round(400 * activity);
      const indexes = new Map<number, number>();
      for (let k = 0; k < n; k++) {
        const v = otlpRnd.logNormal(3 + 20 * activity, 0.6);
        sum += v;
        min = Math.min(min, v);
        max = Math.max(max, v);
        const b = bounds.findIndex((x) => v <= x);
        const at = b < 0 ? bounds.length : b;
        counts[at] = (counts[at] as number) + 1;
        const index = Math.ceil(Math.log2(v) * 2 ** scale) - 1;
        indexes.set(index, (indexes.get(index) ?? 0) + 1);
      }
      commit.push({ count: n, sum, counts, min, max });
      const lo = Math.min(...indexes.keys());
      const hi = Math.max(...indexes.keys());
      exponential.push({
        offset: lo,
        bucketCounts: Array.from({ length: hi - lo + 1 }, (_, k) => indexes.get(lo + k) ?? 0),
      });
    }
    const times = streams.map((_, k) => startMs + (k + 1) * step - 1_000);
    const metrics: MetricData[] = [
      {
        descriptor: {
          name: 'consul.xds.server.streams',
          description: 'xDS streams open',
          unit: '{stream}',
          valueType: ValueType.INT,
        },
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.GAUGE,
        dataPoints: streams.map((v, k) => ({
          startTime: hr(times[k] as number),
          endTime: hr(times[k] as number),
          attributes: {},
          value: v,
        })),
      },
      {
        // A server that ran long before the run: its cumulative stream began an hour
        // earlier, and its last point before the run is what the first increase in the run
        // is counted from (not the 50,000 requests it had served before).
        descriptor: {
          name: 'consul.rpc.request',
          description: 'RPC requests served by the server since it started',
          unit: '{request}',
          valueType: ValueType.INT,
        },
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints: [t0 - 10_000, ...times].map((t, k) => ({
          startTime: hr(t0 - 3_600_000),
          endTime: hr(t),
          attributes: { server: 'consul-server-1' },
          value: 50_000 + k * 1_000 + (k > 0 ? (registrations[k - 1] as number) : 0),
        })),
      },
      {
        descriptor: {
          name: 'consul.catalog.register',
          description: 'service instances registered',
          unit: '{instance}',
          valueType: ValueType.INT,
        },
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints: registrations.map((v, k) => ({
          startTime: hr(startMs),
          endTime: hr(times[k] as number),
          attributes: {},
          value: v,
        })),
      },
      {
        descriptor: {
          name: 'consul.raft.commit_time',
          description: 'raft commit time',
          unit: 'ms',
          valueType: ValueType.DOUBLE,
        },
        aggregationTemporality: AggregationTemporality.DELTA,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints: commit.map((h, k) => ({
          startTime: hr((times[k] as number) - step),
          endTime: hr(times[k] as number),
          attributes: {},
          value: {
            buckets: { boundaries: bounds, counts: h.counts },
            count: h.count,
            sum: h.sum,
            min: h.min,
            max: h.max,
          },
        })),
      },
      {
        // The same commit times from a server that has run for an hour: a cumulative stream
        // whose points carry its min (0.2 ms) and max (4 s) since then, set before the run and
        // never reached again. The run's own extremes are not in any point: the series stats
        // say "≥ 0.2 ms" and "≤ 4 s" (the stream's), and that the first increase, counted
        // from the point 10 s before the run, may hold values from before it.
        descriptor: {
          name: 'consul.raft.commit_time.cumulative',
          description: 'raft commit time since the server started',
          unit: 'ms',
          valueType: ValueType.DOUBLE,
        },
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints: [
          { count: 0, sum: 0, counts: [] as number[], min: 0.2, max: 4000 },
          ...commit,
        ].map((_, k, all) => {
          // Before the run: 500 commits, one of 0.2 ms and one of 4000 ms among them.
          const before = bounds.map((_b, i) => (i === 0 ? 1 : i === 3 ? 498 : 0)).concat(1);
          const counts = before.map(
            (c, i) => c + all.slice(1, k + 1).reduce((n, h) => n + (h.counts[i] as number), 0),
          );
          const upTo = all.slice(1, k + 1);
          return {
            startTime: hr(t0 - 3_600_000),
            endTime: hr(k === 0 ? t0 - 10_000 : (times[k - 1] as number)),
            attributes: { server: 'consul-server-1' },
            value: {
              buckets: { boundaries: bounds, counts },
              count: 500 + upTo.reduce((n, h) => n + h.count, 0),
              sum: 0.2 + 498 * 8 + 4000 + upTo.reduce((n, h) => n + h.sum, 0),
              min: Math.min(0.2, ...upTo.map((h) => h.min)),
              max: Math.max(4000, ...upTo.map((h) => h.max)),
            },
          };
        }),
      },
      {
        // The same values as consul.raft.commit_time: its percentiles beside the explicit
        // buckets' show what each layout can say (a bucket of +-2 % here, of 5-25 ms there).
        descriptor: {
          name: 'consul.raft.commit_time.exponential',
          description: 'raft commit time, exponential buckets',
          unit: 'ms',
          valueType: ValueType.DOUBLE,
        },
        aggregationTemporality: AggregationTemporality.DELTA,
        dataPointType: DataPointType.EXPONENTIAL_HISTOGRAM,
        dataPoints: commit.map((h, k) => ({
          startTime: hr((times[k] as number) - step),
          endTime: hr(times[k] as number),
          attributes: {},
          value: {
            count: h.count,
            sum: h.sum,
            scale,
            zeroCount: 0,
            positive: exponential[k] as { offset: number; bucketCounts: number[] },
            negative: { offset: 0, bucketCounts: [] },
            min: h.min,
            max: h.max,
          },
        })),
      },
    ];
    return {
      resource: resourceFromAttributes({
        'service.name': 'consul-server',
        'meshbench.run': runRef,
      }),
      scopeMetrics: [{ scope: { name: 'consul', version: s.version }, metrics }],
    };
  };

  return {
    run: {
      benchmark: 'global-scale',
      scenario: 'scale-up',
      mesh: { name: 'consul', version: s.version },
      platform: 'nomad',
      topology: {
        nodes: s.nodes,
        services: s.perNode,
        instances: s.nodes * s.perNode,
        servers: 5,
      },
      environment: 'demo',
      labels: { source: 'demo', branch: s.branch, seed: String(s.seed) },
      startedAt: iso(0),
      finishedAt: iso(s.durationMs),
    },
    events,
    statsdLines,
    otlp,
  };
}

/** Sends StatsD lines over UDP in ~1,400-byte datagrams, paced so loopback drops none. */
export async function sendStatsd(host: string, port: number, lines: string[]): Promise<number> {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  const datagrams: string[] = [];
  let current = '';
  for (const line of lines) {
    if (current && current.length + line.length + 1 > 1400) {
      datagrams.push(current);
      current = '';
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current) datagrams.push(current);
  try {
    for (const d of datagrams) {
      await new Promise<void>((resolve, reject) =>
        socket.send(d, port, host, (error) => (error ? reject(error) : resolve())),
      );
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    socket.close();
  }
  return datagrams.length;
}

/** Exports through the OpenTelemetry SDK's OTLP/HTTP protobuf exporter. */
export async function sendOtlp(
  baseUrl: string,
  data: ResourceMetrics,
  token?: string,
): Promise<void> {
  const exporter = new OTLPMetricExporter({
    url: `${baseUrl}/v1/metrics`,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  try {
    await new Promise<void>((resolve, reject) =>
      exporter.export(data, (result) =>
        result.code === 0 ? resolve() : reject(result.error ?? new Error('OTLP export failed')),
      ),
    );
  } finally {
    await exporter.shutdown();
  }
}

/** Posts a scale-up run: events through the API, StatsD to statsdPort, OTLP to /v1/metrics. */
export async function loadScaleUp(
  opts: {
    baseUrl: string;
    token?: string | undefined;
    statsdPort?: number;
    log?: (message: string) => void;
  },
  scenario: ScaleUpScenario = consulScaleUp,
): Promise<Run> {
  const api = apiClient(opts.baseUrl, opts.token);
  const scale = scaleUpRun(scenario);
  const { finishedAt, ...started } = scale.run;
  const run = await api.createRun(started);
  await api.postEvents(run.id, scale.events, `demo-${scenario.seed}`);
  if (opts.statsdPort) {
    const host = new URL(opts.baseUrl).hostname.replace(/^\[|\]$/g, '');
    await sendStatsd(host, opts.statsdPort, scale.statsdLines(run.id));
  } else {
    opts.log?.('demo: STATSD_PORT=0, so the scale-up run gets no StatsD series');
  }
  await sendOtlp(opts.baseUrl, scale.otlp(run.id), opts.token);
  return api.finishRun(run.id, finishedAt);
}
