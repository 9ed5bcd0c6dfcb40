// Metric points that reach a run without naming it (its environment and time window pick it)
// move the run's data version like any other write, so a live viewer sees them as they are
// stored: one case per way in (OTLP, StatsD, Prometheus remote write), and points held for a
// run not created yet, claimed by it when it is.
import StatsD from 'hot-shots';
import { describe, expect, it } from 'vitest';
import { backends, createRun } from '../../test/harness.ts';
import { openLive } from '../../test/live-reader.ts';
import { useMetricsServer } from '../../test/metrics-harness.ts';
import { CONTENT_TYPE_V1, compress, encodeV1, postWrite } from '../../test/remote-write-proto.ts';

let n = 0;
const unique = (what: string) => `${what}-${process.pid}-${Date.now()}-${n++}`;
const iso = (ms: number) => new Date(ms).toISOString();

describe.each(backends)('live view of metric points matched by environment on $name', (backend) => {
  const server = useMetricsServer(backend, {
    MESHBENCH_LIVE_POLL_MS: '50',
    MESHBENCH_STATSD_FLUSH_MS: '200',
  });

  /** A running run of a new environment, watched: the first state, then a wait for `name`. */
  async function watched() {
    const environment = unique('env');
    const run = await createRun(server, { environment, startedAt: iso(Date.now() - 60_000) });
    const reader = await openLive(server.url, run.id);
    const first = await reader.next((e) => e.type === 'state');
    expect(first.state.series).toEqual([]);
    return {
      run,
      environment,
      /** The first state carrying series `name`, at a later version than the first. */
      async seen(name: string) {
        const got = await reader.next((e) => e.state.series.some((s) => s.name === name), 8_000);
        expect(Number(got.id)).toBeGreaterThan(Number(first.id));
        reader.close();
        return got.state.series.find((s) => s.name === name);
      },
    };
  }

  it('OTLP points with deployment.environment and no run id', async () => {
    const w = await watched();
    const body = {
      resourceMetrics: [
        {
          resource: {
            attributes: [{ key: 'deployment.environment', value: { stringValue: w.environment } }],
          },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'env.gauge',
                  gauge: {
                    dataPoints: [{ timeUnixNano: String(Date.now() * 1e6), asDouble: 7 }],
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    const answer = await fetch(`${server.url}/v1/metrics`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(200);
    expect((await w.seen('env.gauge'))?.stats.last).toBe(7);
  });

  it('StatsD lines with an env tag and no run tag', async () => {
    const w = await watched();
    const client = new StatsD({ host: '127.0.0.1', port: server.udpPort, telegraf: true });
    for (let i = 0; i < 4; i++) client.increment('env.counted', 5, { env: w.environment });
    await new Promise<void>((resolve) => client.close(() => resolve()));
    expect((await w.seen('env.counted'))?.stats).toMatchObject({ count: 4, sum: 20 });
  });

  it('remote write samples with an env label and no run label', async () => {
    const w = await watched();
    const message = {
      timeseries: [
        {
          labels: [
            { name: '__name__', value: 'env_pushes' },
            { name: 'env', value: w.environment },
          ],
          samples: [{ value: 3, timestamp: Date.now() }],
        },
      ],
    };
    const answer = await postWrite(
      server.url,
      server.token,
      compress(encodeV1(message)),
      CONTENT_TYPE_V1,
    );
    expect(answer.status).toBe(204);
    expect((await w.seen('env_pushes'))?.stats.last).toBe(3);
  });

  it('points held for a run not created yet, claimed when it is', async () => {
    const environment = unique('env');
    const t0 = Date.now() - 60_000;
    const message = {
      timeseries: [
        {
          labels: [
            { name: '__name__', value: 'held_applies' },
            { name: 'env', value: environment },
          ],
          samples: [{ value: 5, timestamp: t0 + 1_000 }],
        },
      ],
    };
    expect(
      (await postWrite(server.url, server.token, compress(encodeV1(message)), CONTENT_TYPE_V1))
        .status,
    ).toBe(204);
    const run = await createRun(server, { environment, startedAt: iso(t0) });
    const reader = await openLive(server.url, run.id);
    const first = await reader.next((e) => e.type === 'state');
    reader.close();
    expect(first.state.series.find((s) => s.name === 'held_applies')?.stats.last).toBe(5);
    // The claim is a write of its own: its version is past the run's creation (0).
    expect(Number(first.id)).toBeGreaterThan(0);
  });
});
