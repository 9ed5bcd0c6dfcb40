import { createSocket } from 'node:dgram';
import { seriesPoints, timeline } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents } from '../../test/harness.ts';
import { until, useMetricsServer } from '../../test/metrics-harness.ts';

const T0 = Date.UTC(2026, 1, 1, 10, 0, 0);
const at = (ms: number) => new Date(T0 + ms).toISOString();

describe.each(backends)('timeline on $name', (backend) => {
  const server = useMetricsServer(backend, { MESHBENCH_STATSD_FLUSH_MS: '100' });

  it('puts lifecycle phases and series on one axis from the run start', async () => {
    const run = await createRun(server, {
      topology: { nodes: 10, instances: 20 },
      startedAt: at(0),
      finishedAt: at(600_000),
    });
    // Node k joins at k * 10 s; allocations are scheduled at 60 s + k s, and run 30 s later,
    // all but two.
    const events = [
      ...Array.from({ length: 10 }, (_, k) => ({
        type: 'lifecycle',
        phase: 'joined',
        entity: `node-${k}`,
        at: at((k + 1) * 10_000),
      })),
      ...Array.from({ length: 20 }, (_, k) => ({
        type: 'lifecycle',
        phase: 'scheduled',
        entity: `alloc-${k}`,
        at: at(60_000 + k * 1000),
      })),
      ...Array.from({ length: 18 }, (_, k) => ({
        type: 'lifecycle',
        phase: 'running',
        entity: `alloc-${k}`,
        at: at(90_000 + k * 1000),
      })),
      // A repeated report of one node's join counts once, at its first time.
      { type: 'lifecycle', phase: 'joined', entity: 'node-0', at: at(500_000) },
    ];
    const posted = await postEvents(server, run.id, ndjson(events));
    expect(posted.status).toBe(200);

    // Control-plane CPU every second for 10 minutes, with one spike at 123 s.
    const lines: string[] = [];
    for (let s = 0; s < 600; s++) {
      const cpu = s === 123 ? 97 : s < 200 ? 40 : 8;
      lines.push(`cp.cpu:${cpu}|g|#run:${run.id}|T${T0 / 1000 + s}`);
      lines.push(`xds.pushes:2|c|#run:${run.id}|T${T0 / 1000 + s}`);
    }
    const socket = createSocket('udp4');
    const before = server.app.statsd.stats().samples;
    for (let i = 0; i < lines.length; i += 20) {
      await new Promise<void>((resolve, reject) =>
        socket.send(lines.slice(i, i + 20).join('\n'), server.udpPort, '127.0.0.1', (e) =>
          e ? reject(e) : resolve(),
        ),
      );
    }
    socket.close();
    await until(() => server.app.statsd.stats().samples - before >= lines.length);
    await server.app.statsd.flush();

    const { status, body } = await server.json(`/runs/${run.id}/timeline?points=60`, {}, timeline);
    expect(status).toBe(200);
    expect(body.durationMs).toBe(600_000);
    expect(body.bucketMs).toBe(10_000);
    const joined = body.phases.find((p) => p.phase === 'joined');
    expect(joined).toMatchObject({ count: 10, total: 10, totalSource: 'topology' });
    expect(joined?.timeTo).toEqual([
      { percent: 50, offsetMs: 50_000 },
      { percent: 90, offsetMs: 90_000 },
      { percent: 99, offsetMs: 100_000 },
      { percent: 100, offsetMs: 100_000 },
    ]);
    expect(joined?.points).toHaveLength(61);
    expect(joined?.points[4]).toEqual({ offsetMs: 40_000, count: 4, ratePerSec: 0.1 });
    expect(joined?.points.at(-1)?.count).toBe(10);
    const running = body.phases.find((p) => p.phase === 'running');
    expect(running).toMatchObject({ count: 18, total: 20 });
    // 18 of 20 never reach 99 %: the last ones never ran.
    expect(running?.timeTo.map((t) => t.offsetMs)).toEqual([99_000, 107_000, null, null]);

    const cpu = body.series.find((s) => s.name === 'cp.cpu');
    expect(cpu?.points.length).toBeLessThanOrEqual(61);
    expect(cpu?.points[12]).toMatchObject({ offsetMs: 120_000, value: 40, min: 40, max: 97 });
    expect(cpu?.points.at(-1)).toMatchObject({ value: 8 });
    const pushes = body.series.find((s) => s.name === 'xds.pushes');
    expect(pushes?.points[0]).toMatchObject({ value: 20 });

    // Steady = after the whole ramp: nodes all joined at 100 s, allocations all scheduled at
    // 79 s, but running never reached its 20 (18 ran, the last at 107 s): from 107 s. CPU from
    // 107 s to 599 s: 92 samples of 40 and the spike of 97 (107..199 s), 400 of 8:
    // (92 * 40 + 97 + 400 * 8) / 493.
    expect(body.steadyFrom).toEqual({ phase: 'running', offsetMs: 107_000, reached: false });
    expect(cpu?.levels?.peak).toBe(97);
    expect(cpu?.levels?.steady).toBeCloseTo(6977 / 493, 9);
    // A counter (not of CPU seconds) has no level to quote.
    expect(pushes?.levels).toBeUndefined();

    const points = await server.json(
      `/runs/${run.id}/series/${cpu?.id}/points?points=7`,
      {},
      seriesPoints,
    );
    expect(points.body.points.length).toBeLessThanOrEqual(7);
    expect(Math.max(...points.body.points.map((p) => p.max as number))).toBe(97);

    const missing = await server.json(`/runs/${run.id}/series/999999999/points`);
    expect(missing.status).toBe(404);
  });
});
