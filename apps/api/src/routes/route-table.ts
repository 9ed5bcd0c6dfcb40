// Every route the app registers (method, url, its contract when it has one), recorded as
// Fastify adds it: what contracts.int.test holds equal to the contracts in @meshbench/schema.
import type { RouteContract } from '@meshbench/schema';
import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  url: string;
  contract: RouteContract | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: readonly RegisteredRoute[];
  }
}

/** Starts the record; call before any route is registered. */
export function recordRoutes(app: FastifyInstance): void {
  const table: RegisteredRoute[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      table.push({ method, url: route.url, contract: route.config?.contract });
    }
  });
}
