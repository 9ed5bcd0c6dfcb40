// The health group: liveness and readiness for balancers and orchestrators.
import { defineRoutes } from '../contract.ts';
import { demoProgress, health, healthUnavailable, liveness } from '../errors.ts';

/** A database that has not answered in this long is reported unavailable. */
export const HEALTH_TIMEOUT_MS = 5_000;

const readyDescription = `200 when the database answers; 503 with \`Retry-After\` and the reason when the replica should get no traffic: \`status\` unavailable (\`code\`: database_unavailable) when the database cannot be reached or has not answered within ${HEALTH_TIMEOUT_MS / 1000} s, as while a PostgreSQL server restarts; \`status\` draining (\`code\`: draining) from SIGTERM until the replica closes (MESHBENCH_DRAIN_MS), while it still serves every other request. The process itself stays up and serves again as soon as the database does.`;

export const healthRoutes = defineRoutes({
  health: {
    method: 'GET',
    path: '/health',
    tags: ['health'],
    summary: 'Health (as readiness)',
    description: `The same as /health/ready. ${readyDescription}`,
    responses: { 200: health, 503: healthUnavailable },
  },
  ready: {
    method: 'GET',
    path: '/health/ready',
    tags: ['health'],
    summary: 'Readiness',
    description: `Readiness, for a balancer's health check or an orchestrator's readiness probe. ${readyDescription}`,
    responses: { 200: health, 503: healthUnavailable },
  },
  live: {
    method: 'GET',
    path: '/health/live',
    tags: ['health'],
    summary: 'Liveness',
    description:
      'Liveness: 200 while the process serves requests, draining or not, database or not (a liveness probe that restarted a replica whose database is away would not bring the database back).',
    responses: { 200: liveness },
  },
  demo: {
    method: 'GET',
    path: '/demo',
    tags: ['health'],
    summary: 'How far the demo dataset has loaded',
    description:
      "The first start of an empty database posts the demo dataset in the background (unless MESHBENCH_DEMO=0): `loaded` of `total` runs so far; `off` when this process loads none. The web app's runs list shows it while it loads.",
    responses: { 200: demoProgress },
  },
});
