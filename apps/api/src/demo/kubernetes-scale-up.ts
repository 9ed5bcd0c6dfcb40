// Scale-ups on Kubernetes, as an Istio or Linkerd engineer runs them: 100 nodes join, then
// 2,000 meshed pods are scheduled, start, and their sidecars connect to the control plane.
// The control plane's metrics come under the names its own code registers, as the
// Prometheus that scrapes it forwards them with remote_write (demo/remote-write.ts: one
// Remote-Write 2.0 request per scrape to POST /api/v1/write):
// - Istio (istio/istio pilot/pkg/xds/monitoring.go): `pilot_xds` (gauge, proxies connected,
//   label version), `pilot_xds_pushes` (counter, label type cds/eds/lds/rds),
//   `pilot_proxy_convergence_time` (histogram, seconds, bounds .1 .5 1 3 5 10 20 30);
// - Linkerd (linkerd/linkerd2 b24cd40 controller/api/destination/watcher/prometheus.go):
//   `endpoints_subscribers` (gauge), `endpoints_updates` (counter),
//   `endpointslices_informer_lag_seconds` (histogram, bounds .5 1 2.5 5 10 25 50 100 250 1000);
// - both: Go's process collector, `process_cpu_seconds_total` (counter, s) and
//   `process_resident_memory_bytes` (gauge, By), one series per control-plane pod.
import type { CreateRunBody, ProbeEvent, Run } from '@meshbench/schema';
import { type HrTime, ValueType } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { apiClient } from './client.ts';
import { prng } from './prng.ts';
import { remoteWriteScrapes, sendRemoteWrite } from './remote-write.ts';

export interface KubernetesScaleUpScenario {
  mesh: 'istio' | 'linkerd';
  version: string;
  seed: number;
  nodes: number;
  pods: number;
  /** Pods are created over this span after the nodes are up, ms. */
  rolloutMs: number;
  durationMs: number;
  start: string;
  /** The control plane's pods (replicas): one series per pod. */
  controlPlane: string[];
}

export const istioKubernetesScaleUp: KubernetesScaleUpScenario = {
  mesh: 'istio',
  version: '1.22.3',
  seed: 20240701,
  nodes: 100,
  pods: 2000,
  rolloutMs: 240_000,
  durationMs: 600_000,
  start: '2026-02-04T09:00:00.000Z',
  controlPlane: ['istiod-6d8f9c7b5-2xkqp', 'istiod-6d8f9c7b5-9wz4m'],
};

export const linkerdKubernetesScaleUp: KubernetesScaleUpScenario = {
  mesh: 'linkerd',
  version: '2.16.1',
  seed: 20240702,
  nodes: 100,
  pods: 2000,
  rolloutMs: 240_000,
  durationMs: 600_000,
  start: '2026-02-04T11:00:00.000Z',
  controlPlane: [
    'linkerd-destination-7c9b6d5f4-h2l8r',
    'linkerd-destination-7c9b6d5f4-m5v7t',
    'linkerd-destination-7c9b6d5f4-q9d3x',
  ],
};

export const kubernetesScaleUpScenarios = [istioKubernetesScaleUp, linkerdKubernetesScaleUp];

const hr = (ms: number): HrTime => [Math.floor(ms / 1000), (ms % 1000) * 1e6];

/** Nodes joining over the first minute, then pods scheduled, running and connected. */
export function kubernetesScaleUpRun(s: KubernetesScaleUpScenario): {
  run: CreateRunBody;
  events: ProbeEvent[];
  /** Epoch ms at which each sidecar connected, ascending. */
  connected: number[];
  otlp: (runRef: string) => ResourceMetrics;
} {
  const rnd = prng(s.seed);
  const t0 = Date.parse(s.start);
  const iso = (ms: number) => new Date(t0 + ms).toISOString();
  const events: ProbeEvent[] = [];
  const nodes: string[] = [];
  let lastJoin = 0;
  for (let n = 0; n < s.nodes; n++) {
    const node = `gke-pool-${String(n).padStart(3, '0')}`;
    nodes.push(node);
    const at = Math.round(2_000 + 55_000 * rnd.next() ** 0.8);
    lastJoin = Math.max(lastJoin, at);
    events.push({ type: 'lifecycle', phase: 'joined', entity: node, node, at: iso(at) });
  }
  const connected: number[] = [];
  // The sidecar's connect time grows while the control plane is busy pushing to the others.
  const connectMs = s.mesh === 'istio' ? 900 : 350;
  for (let p = 0; p < s.pods; p++) {
    const node = nodes[p % nodes.length] as string;
    const pod = `web-${String(p).padStart(4, '0')}`;
    const scheduled = lastJoin + 1_000 + s.rolloutMs * rnd.next();
    events.push({ type: 'lifecycle', phase: 'scheduled', entity: pod, node, at: iso(scheduled) });
    const running = scheduled + rnd.logNormal(6_000, 0.5);
    events.push({ type: 'lifecycle', phase: 'running', entity: pod, node, at: iso(running) });
    const busy = 1 + (2 * (running - lastJoin)) / s.rolloutMs;
    const proxy = running + rnd.logNormal(connectMs * busy, 0.6);
    connected.push(t0 + proxy);
    events.push({
      type: 'lifecycle',
      phase: 'proxy-connected',
      entity: pod,
      node,
      at: iso(proxy),
    });
  }
  connected.sort((a, b) => a - b);

  const otlp = (runRef: string): ResourceMetrics => {
    const mrnd = prng(s.seed + 1);
    const step = 10_000;
    const times: number[] = [];
    // From one scrape before the run: the base its first increases are counted from.
    for (let ms = -step; ms <= s.durationMs; ms += step) times.push(t0 + ms);
    const replicas = s.controlPlane.length;
    // Proxies connected by each scrape, spread over the replicas.
    const connectedBy = times.map((t) => {
      let lo = 0;
      let hi = connected.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((connected[mid] as number) <= t) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    });
    const newIn = connectedBy.map((c, k) => c - (k === 0 ? 0 : (connectedBy[k - 1] as number)));
    const metrics: MetricData[] = [];
    const perPod = (pod: number, total: number) =>
      Math.floor(total / replicas) + (pod < total % replicas ? 1 : 0);

    // CPU: a floor, plus work per new proxy (pushes to every connected proxy); memory grows
    // with the proxies each replica serves.
    const cpuPerProxy = s.mesh === 'istio' ? 0.15 : 0.04;
    const memPerProxy = s.mesh === 'istio' ? 180_000 : 60_000;
    const cpu = s.controlPlane.map(() => [] as number[]);
    const memory = s.controlPlane.map(() => [] as number[]);
    for (const [k] of times.entries()) {
      for (let pod = 0; pod < replicas; pod++) {
        const work =
          perPod(pod, newIn[k] as number) * cpuPerProxy * (1 + (connectedBy[k] as number) / 4000);
        const prev = k === 0 ? 120 : ((cpu[pod] as number[])[k - 1] as number);
        (cpu[pod] as number[]).push(prev + 0.05 * (step / 1000) + work + mrnd.uniform(0, 0.02));
        (memory[pod] as number[]).push(
          (s.mesh === 'istio' ? 140e6 : 45e6) +
            perPod(pod, connectedBy[k] as number) * memPerProxy +
            mrnd.uniform(-2e6, 2e6),
        );
      }
    }
    metrics.push(
      {
        descriptor: {
          name: 'process_cpu_seconds_total',
          description: 'Total user and system CPU time spent in seconds.',
          unit: 's',
          valueType: ValueType.DOUBLE,
        },
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints: s.controlPlane.flatMap((pod, i) =>
          times.map((t, k) => ({
            startTime: hr(t0 - 3_600_000),
            endTime: hr(t),
            attributes: { pod },
            value: Math.round(((cpu[i] as number[])[k] as number) * 1000) / 1000,
          })),
        ),
      },
      {
        descriptor: {
          name: 'process_resident_memory_bytes',
          description: 'Resident memory size in bytes.',
          unit: 'By',
          valueType: ValueType.DOUBLE,
        },
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.GAUGE,
        dataPoints: s.controlPlane.flatMap((pod, i) =>
          times.map((t, k) => ({
            startTime: hr(t),
            endTime: hr(t),
            attributes: { pod },
            value: Math.round((memory[i] as number[])[k] as number),
          })),
        ),
      },
    );

    // The convergence (Istio) or informer lag (Linkerd) histogram: cumulative per pod.
    const bounds =
      s.mesh === 'istio'
        ? [0.1, 0.5, 1, 3, 5, 10, 20, 30]
        : [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000];
    const histogram = s.controlPlane.map(() => ({
      counts: new Array<number>(bounds.length + 1).fill(0),
      count: 0,
      sum: 0,
    }));
    const histogramPoints = s.controlPlane.map(() => [] as MetricData['dataPoints']);
    for (const [k, t] of times.entries()) {
      const busy = (newIn[k] as number) / 100;
      for (let pod = 0; pod < replicas; pod++) {
        const h = histogram[pod] as (typeof histogram)[number];
        const n = perPod(pod, newIn[k] as number) * (s.mesh === 'istio' ? 4 : 1);
        for (let j = 0; j < n; j++) {
          const v = mrnd.logNormal((s.mesh === 'istio' ? 0.35 : 0.6) * (1 + busy), 0.7);
          const b = bounds.findIndex((x) => v <= x);
          const at = b < 0 ? bounds.length : b;
          h.counts[at] = (h.counts[at] as number) + 1;
          h.count++;
          h.sum += v;
        }
        (histogramPoints[pod] as unknown[]).push({
          startTime: hr(t0 - 3_600_000),
          endTime: hr(t),
          attributes: { pod: s.controlPlane[pod] as string },
          value: {
            buckets: { boundaries: bounds, counts: [...h.counts] },
            count: h.count,
            sum: Math.round(h.sum * 1000) / 1000,
          },
        });
      }
    }
    const counter = (name: string, description: string, perProxy: number, type?: string) => ({
      descriptor: { name, description, unit: '', valueType: ValueType.INT },
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.SUM,
      isMonotonic: true,
      dataPoints: s.controlPlane.flatMap((pod, i) => {
        let total = 0;
        return times.map((t, k) => {
          // Each new proxy gets its config, and every connected proxy an update about it.
          total +=
            perPod(i, newIn[k] as number) * perProxy +
            Math.round(perPod(i, connectedBy[k] as number) * (newIn[k] as number) * 0.002);
          return {
            startTime: hr(t0 - 3_600_000),
            endTime: hr(t),
            attributes: type ? { pod, type } : { pod },
            value: total,
          };
        });
      }),
    });
    const gauge = (name: string, description: string, attrs: Record<string, string>) => ({
      descriptor: { name, description, unit: '', valueType: ValueType.INT },
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.GAUGE,
      dataPoints: s.controlPlane.flatMap((pod, i) =>
        times.map((t, k) => ({
          startTime: hr(t),
          endTime: hr(t),
          attributes: { pod, ...attrs },
          value: perPod(i, connectedBy[k] as number),
        })),
      ),
    });
    if (s.mesh === 'istio') {
      metrics.push(
        gauge('pilot_xds', 'Number of endpoints connected to this pilot using XDS.', {
          version: s.version,
        }) as MetricData,
        ...(['cds', 'eds', 'lds', 'rds'].map((type) =>
          counter(
            'pilot_xds_pushes',
            'Pilot build and send errors for lds, rds, cds and eds.',
            1,
            type,
          ),
        ) as MetricData[]),
        {
          descriptor: {
            name: 'pilot_proxy_convergence_time',
            description:
              'Delay in seconds between config change and a proxy receiving all required configuration.',
            unit: 's',
            valueType: ValueType.DOUBLE,
          },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.HISTOGRAM,
          dataPoints: histogramPoints.flat(),
        } as MetricData,
      );
    } else {
      metrics.push(
        gauge(
          'endpoints_subscribers',
          'A gauge for the current number of subscribers to a endpoints.',
          {
            namespace: 'demo',
            service: 'web',
          },
        ) as MetricData,
        counter(
          'endpoints_updates',
          'A counter for number of updates to a endpoints.',
          1,
        ) as MetricData,
        {
          descriptor: {
            name: 'endpointslices_informer_lag_seconds',
            description:
              'The amount of time between when an EndpointSlice resource is updated and when an informer observes it',
            unit: 's',
            valueType: ValueType.DOUBLE,
          },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.HISTOGRAM,
          dataPoints: histogramPoints.flat(),
        } as MetricData,
      );
    }
    return {
      resource: resourceFromAttributes({
        'service.name': s.mesh === 'istio' ? 'istiod' : 'linkerd-destination',
        'k8s.namespace.name': s.mesh === 'istio' ? 'istio-system' : 'linkerd',
        'meshbench.run': runRef,
      }),
      scopeMetrics: [{ scope: { name: 'prometheus-receiver', version: s.version }, metrics }],
    };
  };

  return {
    run: {
      benchmark: 'kubernetes-scale',
      scenario: 'scale-up',
      mesh: { name: s.mesh, version: s.version },
      platform: 'kubernetes',
      topology: { nodes: s.nodes, services: 1, instances: s.pods, servers: s.controlPlane.length },
      environment: 'demo',
      labels: { source: 'demo', branch: 'main', seed: String(s.seed), cluster: 'gke-demo' },
      startedAt: iso(0),
      finishedAt: iso(s.durationMs),
    },
    events,
    connected,
    otlp,
  };
}

/** Posts a Kubernetes scale-up: lifecycle events through the API, metrics by remote write. */
export async function loadKubernetesScaleUp(
  opts: { baseUrl: string; token?: string | undefined },
  scenario: KubernetesScaleUpScenario,
): Promise<Run> {
  const api = apiClient(opts.baseUrl, opts.token);
  const scale = kubernetesScaleUpRun(scenario);
  const { finishedAt, ...started } = scale.run;
  const run = await api.createRun(started);
  await api.postEvents(run.id, scale.events, `demo-${scenario.seed}`);
  await sendRemoteWrite(
    opts.baseUrl,
    remoteWriteScrapes(scale.otlp(run.id), run.id, Date.parse(scenario.start)),
    opts.token,
  );
  return api.finishRun(run.id, finishedAt);
}
