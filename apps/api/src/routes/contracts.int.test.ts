// Every route the app registers is registered from a contract in @meshbench/schema, and every
// contract is registered once, at its method and path: so the client (which builds its calls
// from the contracts) cannot name a route the API lacks. The route table does not depend on
// the database: the app is built once, in memory.
import { contracts, type RouteContract, rootContracts } from '@meshbench/schema';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';

/** Where the API mounts the groups of contracts. */
const API_BASE = '/api/v1';

/** Served, but not the API: the OpenAPI viewer (the web app is not built into this app). */
const notApi = (url: string) => url === '/docs' || url.startsWith('/docs/');

const groups = { ...contracts, ...rootContracts };
const everyContract: RouteContract[] = Object.values(groups).flatMap((group) =>
  Object.values(group as Record<string, RouteContract>),
);
/** Where the app mounts a contract's path. */
const urlOf = (c: RouteContract) => `${c.root ? '' : API_BASE}${c.path}`;

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
      expect(`${r.method} ${r.url}`).toBe(`${c.method} ${urlOf(c)}`);
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

  it('registers no route without a contract', () => {
    const without = registered()
      .filter((r) => !r.contract)
      .map((r) => `${r.method} ${r.url}`);
    expect(without).toEqual([]);
  });

  it('gives no two contracts the same method and path', () => {
    const keys = everyContract.map((c) => `${c.method} ${urlOf(c)}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
