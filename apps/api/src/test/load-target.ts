// A local HTTP server for real load generators (hey, wrk, JMeter) to drive in tests: on
// 127.0.0.1 and a free port, answering after a short varied delay so latencies spread, and
// with a 503 for every `failEvery`-th request so errors by status are counted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoadTarget {
  url: string;
  /** Requests answered, and how many of them 503. */
  served: () => { requests: number; failed: number };
  close: () => Promise<void>;
}

export async function startLoadTarget(options: { failEvery?: number } = {}): Promise<LoadTarget> {
  let requests = 0;
  let failed = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    const n = requests;
    req.resume();
    // 0-3 ms, in a fixed cycle: deterministic enough to spread, no randomness to reproduce.
    setTimeout(() => {
      if (options.failEvery && n % options.failEvery === 0) {
        failed++;
        res.writeHead(503, { 'content-type': 'text/plain' }).end('busy\n');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      }
    }, n % 4);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    served: () => ({ requests, failed }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
