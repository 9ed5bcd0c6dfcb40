// The integration harness with the StatsD listener on: the real app on real sockets
// (HTTP, and StatsD on free UDP and TCP ports read back from app.statsd).
import { type Backend, type TestServer, useServer } from './harness.ts';

export interface MetricsTestServer extends TestServer {
  udpPort: number;
  tcpPort: number;
}

export const useMetricsServer = (backend: Backend, env: Record<string, string> = {}) =>
  useServer(backend, env, { statsd: true }) as MetricsTestServer;

/** Resolves when `check` holds, polling; fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
