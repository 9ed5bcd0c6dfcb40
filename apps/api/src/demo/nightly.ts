// A nightly history: the same small endpoint-propagation benchmark on `main` every night, on
// Consul and Istio, with night-to-night noise and one real regression (Consul, from the night
// of REGRESSION_NIGHT on, applies changes 25 % slower). What the History page and its change
// points are for; posted through the public API like every demo run.
import type { CreateRunBody, ProbeEvent } from '@meshbench/schema';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import { prng } from './prng.ts';

export const NIGHTS = 24;
export const REGRESSION_NIGHT = 16;
export const NIGHTLY_MESHES = [
  { name: 'consul', version: '1.9.5', seed: 7101, medianMs: 60, hour: 0 },
  { name: 'istio', version: '1.8.2', seed: 7102, medianMs: 140, hour: 1 },
] as const;
const PROXIES = 500;
const FIRST_NIGHT = Date.parse('2026-01-01T02:00:00Z');

/** A commit id for a night: 40 hex digits, the same on every start. */
function sha(seed: number): string {
  const rnd = prng(seed);
  return Array.from({ length: 40 }, () => Math.floor(rnd.next() * 16).toString(16)).join('');
}

export interface NightlyRun {
  run: CreateRunBody & { finishedAt: string };
  events: ProbeEvent[];
}

export function nightlyRun(mesh: (typeof NIGHTLY_MESHES)[number], night: number): NightlyRun {
  const rnd = prng(mesh.seed * 1000 + night);
  // Consul at 02:00, Istio at 03:00: one runner, one after the other.
  const t0Us = (FIRST_NIGHT + night * 86_400_000 + mesh.hour * 3_600_000) * 1000;
  const at = (ms: number) => formatTimestampUs(Math.round(t0Us + ms * 1000));
  // The night's conditions move every latency a little; the regression moves Consul's a lot.
  const night_ = rnd.logNormal(1, 0.03);
  const slower = mesh.name === 'consul' && night >= REGRESSION_NIGHT ? 1.25 : 1;
  const events: ProbeEvent[] = [
    {
      type: 'change',
      id: 'endpoint-delete',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: at(0),
      expected: PROXIES,
    },
  ];
  for (let p = 0; p < PROXIES; p++) {
    const latency = rnd.logNormal(mesh.medianMs, 0.35) * night_ * slower;
    events.push({
      type: 'observation',
      change: 'endpoint-delete',
      proxy: `p-${String(p).padStart(3, '0')}`,
      node: `node-${String(Math.floor(p / 10)).padStart(2, '0')}`,
      at: at(latency),
    });
  }
  const commit = sha(night + 1);
  return {
    run: {
      benchmark: 'global-scale',
      scenario: 'nightly-endpoint-propagation',
      mesh: { name: mesh.name, version: mesh.version },
      platform: 'kubernetes',
      topology: { nodes: PROXIES / 10, instances: PROXIES },
      environment: 'demo',
      labels: {
        source: 'demo',
        branch: 'main',
        sha: commit,
        ci: 'github-actions',
        url: `https://ci.example.com/meshbench/nightly/${night + 1}`,
      },
      startedAt: at(-60_000),
      finishedAt: at(60_000),
    },
    events,
  };
}

/** Night 0 first, both meshes each night. */
export function* nightlyRuns(): Generator<NightlyRun> {
  for (let night = 0; night < NIGHTS; night++) {
    for (const mesh of NIGHTLY_MESHES) yield nightlyRun(mesh, night);
  }
}
