// Every route of the API as data, by group. The API registers each from here and a test
// holds the registered set equal to this one; the client derives its calls from it.
import { compareRoutes } from './compare.ts';
import { eventsRoutes } from './events.ts';
import { gatesRoutes } from './gates.ts';
import { healthRoutes } from './health.ts';
import { ingestRoutes } from './ingest.ts';
import { liveRoutes } from './live.ts';
import { metricsRoutes } from './metrics.ts';
import { otlpRoutes } from './otlp.ts';
import { perfettoRoutes } from './perfetto.ts';
import { projectsRoutes } from './projects.ts';
import { prometheusRoutes } from './prometheus.ts';
import { reportsRoutes } from './reports.ts';
import { resultsRoutes } from './results.ts';
import { runsRoutes } from './runs.ts';
import { selfMetricsRoutes } from './self-metrics.ts';
import { tailRoutes } from './tail.ts';

export { HEALTH_TIMEOUT_MS } from './health.ts';
export {
  compareRoutes,
  eventsRoutes,
  gatesRoutes,
  healthRoutes,
  ingestRoutes,
  liveRoutes,
  metricsRoutes,
  otlpRoutes,
  perfettoRoutes,
  projectsRoutes,
  prometheusRoutes,
  reportsRoutes,
  resultsRoutes,
  runsRoutes,
  selfMetricsRoutes,
  tailRoutes,
};

/** The routes under /api/v1, the client's: each group named as the client calls it. */
export const contracts = {
  health: healthRoutes,
  runs: runsRoutes,
  live: liveRoutes,
  events: eventsRoutes,
  tail: tailRoutes,
  perfetto: perfettoRoutes,
  results: resultsRoutes,
  metrics: metricsRoutes,
  projects: projectsRoutes,
  gates: gatesRoutes,
  reports: reportsRoutes,
  compare: compareRoutes,
  ingest: ingestRoutes,
  prometheus: prometheusRoutes,
} as const;

/** The routes at the server's root: OTLP's own paths and the scrape. */
export const rootContracts = {
  otlp: otlpRoutes,
  selfMetrics: selfMetricsRoutes,
} as const;
