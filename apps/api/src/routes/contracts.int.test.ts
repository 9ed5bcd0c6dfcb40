// Every route the app registers is registered from a contract in @meshbench/schema, and every
// contract is registered once, at its method and path: so the client (which builds its calls
// from the contracts) cannot name a route the API lacks. The route table does not depend on
// the database: the app is built once, in memory.
import { contracts, type RouteContract } from '@meshbench/schema';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';

/** Where the API mounts the groups of contracts. */
const API_BASE = '/api/v1';

/** Served, but not the API: the OpenAPI viewer. */
const notApi = (url: string) => url === '/docs' || url.startsWith('/docs/');

/** API routes still registered by hand while their groups move to contracts: shrinks to none. */
const WITHOUT_CONTRACT = [
  'GET /api/v1/health',
  'GET /api/v1/health/ready',
  'GET /api/v1/health/live',
  'GET /api/v1/runs/:id/live',
  'POST /api/v1/projects',
  'GET /api/v1/projects',
  'POST /api/v1/projects/:id/tokens',
  'GET /api/v1/projects/:id/tokens',
  'GET /api/v1/projects/:id/detection',
  'PUT /api/v1/projects/:id/detection',
  'GET /api/v1/projects/:id/retention',
  'PUT /api/v1/projects/:id/retention',
  'DELETE /api/v1/tokens/:id',
  'GET /api/v1/runs/:id/gate',
  'GET /api/v1/projects/:id/alerts',
  'PATCH /api/v1/alerts/:id',
  'GET /api/v1/runs/:id/significance',
  'GET /api/v1/runs/:id/load-gate',
  'GET /api/v1/history',
  'POST /api/v1/projects/:id/thresholds',
  'GET /api/v1/projects/:id/thresholds',
  'DELETE /api/v1/thresholds/:id',
  'GET /api/v1/runs/:id/changes/:changeId/tail/attribution',
  'GET /api/v1/runs/:id/changes/:changeId/tail',
  'GET /api/v1/runs/:id/changes/:changeId/perfetto',
  'POST /api/v1/reports',
  'GET /api/v1/reports/:slug',
  'DELETE /api/v1/reports/:slug',
  'GET /api/v1/compare/comparability',
  'POST /api/v1/runs/:id/results',
  'GET /api/v1/runs/:id/results',
  'GET /api/v1/runs/:id/results/stages',
  'GET /api/v1/runs/:id/series',
  'GET /api/v1/runs/:id/series/:seriesId/points',
  'GET /api/v1/runs/:id/series/:seriesId/exemplars',
  'GET /api/v1/runs/:id/timeline',
  'GET /api/v1/statsd/stats',
  'GET /api/v1/ingest/stats',
  'POST /v1/metrics',
  'POST /v1/logs',
  'POST /api/v1/write',
  'GET /metrics',
].sort();

const everyContract: RouteContract[] = Object.values(contracts).flatMap((group) =>
  Object.values(group as Record<string, RouteContract>),
);

describe('route contracts', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    const config = loadConfig({
      STATSD_PORT: '0',
      MESHBENCH_DEMO: '0',
      MESHBENCH_LOG_LEVEL: 'silent',
    });
    app = await buildApp(config, { logger: false, inMemory: true });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
  });

  // Fastify adds a HEAD beside each GET by itself.
  const registered = () => app.routeTable.filter((r) => r.method !== 'HEAD' && !notApi(r.url));

  it('registers each contract once, at its method and path', () => {
    const fromContract = registered().filter((r) => r.contract);
    for (const r of fromContract) {
      const c = r.contract as RouteContract;
      expect(`${r.method} ${r.url}`).toBe(`${c.method} ${API_BASE}${c.path}`);
    }
    const seen = fromContract.map((r) => r.contract);
    for (const c of everyContract) {
      expect(
        seen.filter((s) => s === c),
        `${c.method} ${c.path}`,
      ).toHaveLength(1);
    }
    expect(fromContract).toHaveLength(everyContract.length);
  });

  it('registers no API route without a contract but those still moving', () => {
    const without = registered()
      .filter((r) => !r.contract)
      .map((r) => `${r.method} ${r.url}`)
      .sort();
    expect(without).toEqual(WITHOUT_CONTRACT);
  });

  it('gives no two contracts the same method and path', () => {
    const keys = everyContract.map((c) => `${c.method} ${c.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
