// The Istio 500k RPS exercise as its team ran it (Tetrate, Istio 1.9.8): Locust masters and
// workers on VMs, load raised by adding users (about 2.5 users a request per second: "1m RPS
// maps to ~2.5m users"), against the "user" and "product" services' create, get and getAll
// APIs. One Locust run per stage of users; each stage's report is what Locust's master writes
// for `--json` (stats.serialize_stats(): one entry per request name, its response times in
// Locust's rounded buckets, merged from every worker), posted as it is through the results
// API with the stage's users as `connections`.
import type { CreateRunBody, Run } from '@meshbench/schema';
import { apiClient } from './client.ts';
import { prng } from './prng.ts';
import { istioStagesScenario } from './stages.ts';

/** stats.py bucket_response_time: about two significant digits above 100 ms. */
export function locustBucket(ms: number): number {
  if (ms < 100) return Math.round(ms);
  if (ms < 1000) return Math.round(ms / 10) * 10;
  if (ms < 10000) return Math.round(ms / 100) * 100;
  return Math.round(ms / 1000) * 1000;
}

export interface LocustStagesScenario {
  seed: number;
  start: string;
  /** Users a request per second (the exercise's "1m RPS maps to ~2.5m users"). */
  usersPerRps: number;
  stages: { rps: number; seconds: number; medianMs: number; errorRate: number }[];
  /** Locust request names (the services' APIs), their share of requests and latency factor. */
  endpoints: { method: string; name: string; share: number; factor: number }[];
}

export const istioLocustScenario: LocustStagesScenario = {
  seed: 20210917,
  start: '2026-02-05T11:00:00.000Z',
  usersPerRps: 2.5,
  // The HdrHistogram run's stages, one Locust run each; at the top the ingress gateways start
  // to refuse a few requests.
  stages: istioStagesScenario.stages.map((s, i, all) => ({
    rps: s.targetRps,
    seconds: s.seconds,
    medianMs: s.medianMs,
    errorRate: i === all.length - 1 ? 0.0004 : 0,
  })),
  endpoints: [
    { method: 'POST', name: '/user', share: 0.1, factor: 1.6 },
    { method: 'GET', name: '/user/[id]', share: 0.35, factor: 1 },
    { method: 'GET', name: '/users', share: 0.1, factor: 2.4 },
    { method: 'POST', name: '/product', share: 0.05, factor: 1.7 },
    { method: 'GET', name: '/product/[id]', share: 0.3, factor: 1.1 },
    { method: 'GET', name: '/products', share: 0.1, factor: 2.6 },
  ],
};

/** Distinct response times drawn per entry; each carries an equal share of its requests. */
const DRAWS = 500;

/** A stats entry as StatsEntry.serialize() gives it. */
export interface LocustEntry {
  name: string;
  method: string;
  last_request_timestamp: number;
  start_time: number;
  num_requests: number;
  num_none_requests: number;
  num_failures: number;
  total_response_time: number;
  max_response_time: number;
  min_response_time: number;
  total_content_length: number;
  response_times: Record<string, number>;
  num_reqs_per_sec: Record<string, number>;
  num_fail_per_sec: Record<string, number>;
}

export interface LocustStageReport {
  users: number;
  rps: number;
  /** The file as the master wrote it (json.dumps(..., indent=4)). */
  json: string;
  entries: LocustEntry[];
}

/** Each stage's Locust --json report. */
export function locustStageReports(s: LocustStagesScenario): LocustStageReport[] {
  const rnd = prng(s.seed);
  let t = Date.parse(s.start) / 1000;
  return s.stages.map((stage) => {
    const start = t;
    t += stage.seconds + 30; // the next stage's run starts after a pause
    const entries = s.endpoints.map((e): LocustEntry => {
      const requests = Math.round(stage.rps * e.share * stage.seconds);
      const failures = Math.round(requests * stage.errorRate);
      const buckets = new Map<number, number>();
      let total = 0;
      let min = Number.POSITIVE_INFINITY;
      let max = 0;
      const per = Math.floor(requests / DRAWS);
      for (let d = 0; d < DRAWS; d++) {
        const count = per + (d < requests - per * DRAWS ? 1 : 0);
        if (count === 0) continue;
        // Response times as Locust measures them: ms with microsecond digits.
        const ms = Math.round(rnd.logNormal(stage.medianMs * e.factor, 0.5) * 1000) / 1000;
        buckets.set(locustBucket(ms), (buckets.get(locustBucket(ms)) ?? 0) + count);
        total += ms * count;
        min = Math.min(min, ms);
        max = Math.max(max, ms);
      }
      const perSecond: Record<string, number> = {};
      const failPerSecond: Record<string, number> = {};
      for (let k = 0; k < stage.seconds; k++) {
        const n = Math.floor(requests / stage.seconds) + (k < requests % stage.seconds ? 1 : 0);
        perSecond[String(Math.floor(start) + k)] = n;
        const f = Math.floor(failures / stage.seconds) + (k < failures % stage.seconds ? 1 : 0);
        if (f > 0) failPerSecond[String(Math.floor(start) + k)] = f;
      }
      return {
        name: e.name,
        method: e.method,
        last_request_timestamp: start + stage.seconds - rnd.uniform(0.001, 0.05),
        start_time: start + rnd.uniform(0, 0.02),
        num_requests: requests,
        num_none_requests: 0,
        num_failures: failures,
        total_response_time: total,
        max_response_time: max,
        min_response_time: min,
        total_content_length: requests * (e.name.endsWith('s') ? 2048 : 256),
        // Python writes float keys (round(t, -1) and up) as "150.0", int ones as "42".
        response_times: Object.fromEntries(
          [...buckets].map(([k, n]) => [k >= 100 ? `${k}.0` : String(k), n]),
        ),
        num_reqs_per_sec: perSecond,
        num_fail_per_sec: failPerSecond,
      };
    });
    return {
      users: Math.round(stage.rps * s.usersPerRps),
      rps: stage.rps,
      entries,
      json: JSON.stringify(entries, null, 4),
    };
  });
}

export function locustRunBody(s: LocustStagesScenario): CreateRunBody {
  const seconds = s.stages.reduce((n, x) => n + x.seconds + 30, 0);
  return {
    benchmark: 'istio-500k',
    scenario: 'stages-locust',
    mesh: { name: 'istio', version: '1.9.8' },
    platform: 'kubernetes',
    topology: { nodes: 40, services: 2, instances: 160 },
    environment: 'demo',
    labels: { source: 'demo', branch: 'main', seed: String(s.seed), generator: 'locust' },
    startedAt: new Date(Date.parse(s.start)).toISOString(),
    finishedAt: new Date(Date.parse(s.start) + seconds * 1000).toISOString(),
  };
}

/** Posts the Locust run: each stage's --json report, its users as the point's connections. */
export async function loadLocustStages(
  opts: { baseUrl: string; token?: string | undefined },
  s: LocustStagesScenario = istioLocustScenario,
): Promise<Run> {
  const api = apiClient(opts.baseUrl, opts.token);
  const { finishedAt, ...started } = locustRunBody(s);
  const run = await api.createRun(started);
  for (const report of locustStageReports(s)) {
    await api.postResults(run.id, report.json, 'auto', { mode: 'http', connections: report.users });
  }
  return api.finishRun(run.id, finishedAt);
}
