// The integration harness with the StatsD listener on: the real app on real sockets
// (HTTP, and StatsD on free UDP and TCP ports read back from app.statsd).
import type { AddressInfo } from 'node:net';
import type { Database } from '@meshbench/db';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';
import { type Backend, TEST_ADMIN_TOKEN, type TestServer } from './harness.ts';

export interface MetricsTestServer extends TestServer {
  udpPort: number;
  tcpPort: number;
}

export function useMetricsServer(
  backend: Backend,
  env: Record<string, string> = {},
): MetricsTestServer {
  const server = {} as MetricsTestServer;
  let database: Database;
  beforeAll(async () => {
    database = await backend.open();
    const config = loadConfig({
      MESHBENCH_LOG_LEVEL: 'silent',
      MESHBENCH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      ...env,
    });
    server.token = config.adminToken as string;
    server.app = await buildApp(config, {
      database,
      logger: false,
      inMemory: true,
      statsdPort: 'ephemeral',
    });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as AddressInfo;
    server.url = `http://127.0.0.1:${port}`;
    server.udpPort = server.app.statsd.udpPort as number;
    server.tcpPort = server.app.statsd.tcpPort as number;
    // As harness.ts does: every request carries the admin token unless it sets its own.
    const withToken = (init: RequestInit = {}): RequestInit => {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${server.token}`);
      return { ...init, headers };
    };
    const asJson = async (response: Response) => {
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as never };
    };
    server.api = (path, init) => fetch(`${server.url}/api/v1${path}`, withToken(init));
    server.json = async (path, init) => asJson(await server.api(path, init));
    server.anonJson = async (path, init) =>
      asJson(await fetch(`${server.url}/api/v1${path}`, init));
  });
  afterAll(async () => {
    await server.app?.close();
    await database?.close();
  });
  return server;
}

/** Resolves when `check` holds, polling; fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
