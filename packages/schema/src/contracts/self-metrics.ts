// The replica's own metrics, for a Prometheus scrape (at the server's root).
import { defineRoutes } from '../contract.ts';

export const selfMetricsRoutes = defineRoutes({
  metrics: {
    method: 'GET',
    path: '/metrics',
    tags: ['health'],
    summary: "This replica's own metrics (Prometheus)",
    root: true,
    description:
      "This replica's own metrics in the Prometheus text format: the StatsD listener's and OTLP receiver's counters, and the process's CPU, memory and event-loop lag.",
    responses: {},
  },
});
