// A runner's view of a data-plane benchmark shaped like Istio's best-practice guide:
// Fortio at a fixed 1,000 RPS with 2..64 connections in three sidecar modes, written as
// the Fortio JSON files Fortio itself writes, plus a CPU sweep as Istio's perf CSV.

import type { CreateRunBody } from '@meshbench/schema';
import { nearestRank } from '../domain/nearest-rank.ts';
import { prng } from './prng.ts';

export interface DataPlaneMesh {
  name: string;
  version: string;
  /** Latency one sidecar adds at low load, ms. */
  hopMs: number;
  /** How much heavier the tail is than a log-normal body (P99 multiplier). */
  tail: number;
  /** Proxy CPU per 1,000 RPS, cores. */
  cpuPer1k: number;
  memMiB: number;
  seed: number;
}

export const dataPlaneMeshes: DataPlaneMesh[] = [
  {
    name: 'consul',
    version: '1.9.5',
    hopMs: 0.55,
    tail: 1.6,
    cpuPer1k: 0.32,
    memMiB: 38,
    seed: 11,
  },
  { name: 'istio', version: '1.8.2', hopMs: 0.75, tail: 2.1, cpuPer1k: 0.5, memMiB: 62, seed: 12 },
  {
    name: 'linkerd',
    version: '2.9.2',
    hopMs: 0.35,
    tail: 1.4,
    cpuPer1k: 0.2,
    memMiB: 18,
    seed: 13,
  },
];

export const CONNECTIONS = [2, 4, 8, 16, 32, 64] as const;
export const MODES = ['baseline', 'serveronly', 'both'] as const;
const RPS = 1000;
const SECONDS = 30;

function percentile(sorted: number[], p: number): number {
  return sorted[nearestRank(p, sorted.length) - 1] as number;
}

/** One Fortio JSON result, as `fortio load -json` writes it (durations in seconds). */
export function fortioResult(
  mesh: DataPlaneMesh,
  mode: (typeof MODES)[number],
  connections: number,
  start: Date,
): string {
  const rnd = prng(mesh.seed * 1000 + connections * 10 + MODES.indexOf(mode));
  const hops = mode === 'baseline' ? 0 : mode === 'serveronly' ? 1 : 2;
  const queueMs = 0.012 * connections;
  const medianMs = 0.38 + queueMs + hops * mesh.hopMs * (1 + (connections / 64) * 0.6);
  const n = RPS * SECONDS;
  const samples: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    let ms = rnd.logNormal(medianMs, 0.32);
    if (rnd.chance(0.015)) ms *= 1 + rnd.uniform(0, mesh.tail * (1 + hops * 0.5));
    samples[i] = ms;
  }
  samples.sort((a, b) => a - b);
  const sum = samples.reduce((a, b) => a + b, 0);
  const avg = sum / n;
  const std = Math.sqrt(samples.reduce((a, b) => a + (b - avg) ** 2, 0) / n);
  // Fortio's histogram: variable-width buckets, cumulative percent per bucket.
  const edges = [
    0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 25,
    30, 40, 50, 1e9,
  ];
  const data: { Start: number; End: number; Percent: number; Count: number }[] = [];
  let seen = 0;
  let i = 0;
  for (let b = 0; b + 1 < edges.length; b++) {
    let count = 0;
    while (i < n && (samples[i] as number) < (edges[b + 1] as number)) {
      count++;
      i++;
    }
    if (count === 0) continue;
    seen += count;
    data.push({
      Start: Math.max(edges[b] as number, samples[i - count] as number) / 1000,
      End: Math.min(edges[b + 1] as number, samples[i - 1] as number) / 1000,
      Percent: (seen / n) * 100,
      Count: count,
    });
  }
  const errors = rnd.int(0, 3);
  return JSON.stringify(
    {
      RunType: 'HTTP',
      Labels: `${mesh.name}_qps_${RPS}_c_${connections}_1024_${mode}`,
      StartTime: start.toISOString(),
      RequestedQPS: String(RPS),
      RequestedDuration: `${SECONDS}s`,
      ActualQPS: RPS * (1 - rnd.uniform(0, 0.002)),
      ActualDuration: SECONDS * 1e9,
      NumThreads: connections,
      Version: '1.11.4',
      DurationHistogram: {
        Count: n,
        Min: (samples[0] as number) / 1000,
        Max: (samples[n - 1] as number) / 1000,
        Sum: sum / 1000,
        Avg: avg / 1000,
        StdDev: std / 1000,
        Data: data,
        Percentiles: [50, 75, 90, 99, 99.9].map((p) => ({
          Percentile: p,
          Value: percentile(samples, p) / 1000,
        })),
      },
      ErrorsDurationHistogram: {
        Count: errors,
        Min: 0,
        Max: 0,
        Sum: 0,
        Avg: 0,
        StdDev: 0,
        Data: null,
      },
      RetCodes: { '200': n - errors, ...(errors > 0 ? { '503': errors } : {}) },
      URL: `http://fortioserver:8080/echo?size=1024`,
    },
    null,
    1,
  );
}

/** Proxy CPU and memory against RPS at 16 connections, in Istio's perf CSV (latencies in us). */
export function cpuSweepCsv(mesh: DataPlaneMesh, start: Date): string {
  const rnd = prng(mesh.seed * 7919);
  const header =
    'StartTime,ActualDuration,Labels,NumThreads,ActualQPS,p50,p90,p99,cpu_mili_avg_istio_proxy_fortioclient,cpu_mili_avg_istio_proxy_fortioserver,mem_Mi_avg_istio_proxy_fortioclient,mem_Mi_avg_istio_proxy_fortioserver';
  const rows = [100, 500, 1000, 2000, 4000].map((rps, k) => {
    const p50 = (0.4 + 2 * mesh.hopMs * (1 + rps / 8000)) * 1000;
    const cpu = (rps / 1000) * mesh.cpuPer1k * (1 + rnd.uniform(-0.05, 0.05));
    return [
      new Date(start.getTime() + k * 300_000).toISOString(),
      240,
      // As Istio's runner labels a point: <sha>_qps_<qps>_c_<connections>_<payload>_<config>_<mode>.
      `${(mesh.seed * 2654435761).toString(16).slice(0, 8)}_qps_${rps}_c_16_1024_${mesh.name}-nullvm_both`,
      16,
      rps,
      Math.round(p50),
      Math.round(p50 * 1.6),
      Math.round(p50 * 1.6 * mesh.tail),
      (cpu * 1000).toFixed(3),
      (cpu * 850).toFixed(3),
      (mesh.memMiB + rps / 400).toFixed(3),
      (mesh.memMiB * 0.9 + rps / 500).toFixed(3),
    ].join(',');
  });
  return `${header}\n${rows.join('\n')}\n`;
}

export function dataPlaneRun(mesh: DataPlaneMesh): { run: CreateRunBody; start: Date } {
  const start = new Date(Date.UTC(2026, 1, 3, 9, 0, 0) + mesh.seed * 3_600_000);
  return {
    start,
    run: {
      benchmark: 'data-plane',
      scenario: 'latency-vs-connections-1000rps',
      mesh: { name: mesh.name, version: mesh.version },
      platform: 'kubernetes',
      topology: { nodes: 3, services: 2, instances: 2 },
      environment: 'demo',
      labels: { source: 'demo', branch: 'main', runner: 'fortio', payload: '1024' },
      startedAt: start.toISOString(),
      finishedAt: new Date(start.getTime() + 3_600_000).toISOString(),
    },
  };
}

/**
 * The k6 smoke check a CI job runs before the sweep, as `k6 run --summary-export` writes it
 * (grafana/k6 internal/js/summary-wrapper.js oldJSONSummary: each metric's values inline, each
 * threshold as true when it FAILED). Its P95 threshold is crossed: the data-plane section
 * shows k6's own verdict beside the numbers.
 */
export function k6SmokeSummary(mesh: DataPlaneMesh): string {
  // Two sidecar hops over a 0.6 ms round trip: the median; the tail in proportion.
  const med = 0.6 + 2 * mesh.hopMs;
  const p95 = med * 1.9;
  return JSON.stringify(
    {
      root_group: {
        name: '',
        path: '',
        id: 'd41d8cd98f00b204e9800998ecf8427e',
        groups: {},
        checks: {},
      },
      metrics: {
        http_req_duration: {
          avg: med * 1.12,
          min: med * 0.4,
          med,
          max: med * 9.3,
          'p(90)': med * 1.6,
          'p(95)': p95,
          thresholds: { 'p(95)<2': p95 >= 2 },
        },
        http_req_failed: {
          passes: 0,
          fails: 600,
          value: 0,
          thresholds: { 'rate<0.01': false },
        },
        http_reqs: { count: 600, rate: 19.98 },
        vus: { value: 1, min: 1, max: 4 },
        vus_max: { value: 4, min: 4, max: 4 },
      },
    },
    null,
    4,
  );
}
