// Where the udp-batch addon is not built (no C compiler), the StatsD listener says so and
// reads UDP with node:dgram: nothing else changes for a sender.

import { createSocket } from 'node:dgram';
import { seriesList } from '@meshbench/schema';
import { describe, expect, it, vi } from 'vitest';
import { backends, createRun } from '../test/harness.ts';
import { until, useMetricsServer } from '../test/metrics-harness.ts';

vi.mock('@meshbench/udp-batch', () => ({
  loadUdpBatch: () => ({ available: false, reason: 'the udp-batch addon is not built (test)' }),
}));

describe('StatsD listener without the udp-batch addon', () => {
  const server = useMetricsServer(backends[0]!, { MESHBENCH_STATSD_FLUSH_MS: '200' });

  it('falls back to node:dgram and still aggregates', async () => {
    expect(server.app.statsd.stats().udpReceiver).toBe('dgram');
    const run = await createRun(server);
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) =>
      socket.send(`fallback.hits:3|c|#run:${run.id}`, server.udpPort, '127.0.0.1', (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    socket.close();
    await until(() => server.app.statsd.stats().samples > 0);
    await server.app.statsd.flush();
    const { body } = await server.json(`/runs/${run.id}/series`, {}, seriesList);
    expect(body.find((s) => s.name === 'fallback.hits')?.stats.sum).toBe(3);
  });
});
