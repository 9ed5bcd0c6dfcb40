import { type QuantileValue, seriesList, timeline } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends } from '../test/harness.ts';
import { until, useMetricsServer } from '../test/metrics-harness.ts';
import { consulScaleUp, consulStreamingScaleUp, loadScaleUp, scaleUpRun } from './scale-up.ts';

describe('the scale-up demo data', () => {
  it('is the same on every start', () => {
    const a = scaleUpRun(consulScaleUp);
    const b = scaleUpRun(consulScaleUp);
    expect(a.events).toEqual(b.events);
    expect(a.statsdLines('r')).toEqual(b.statsdLines('r'));
    expect(a.events.length).toBeGreaterThan(9_000);
  });

  it('has a second run, on 1.10 with streaming, that joins sooner on a lighter server', () => {
    const base = scaleUpRun(consulScaleUp);
    const streaming = scaleUpRun(consulStreamingScaleUp);
    expect(streaming.run.mesh).toEqual({ name: 'consul', version: '1.10.0' });
    const lastJoin = (d: typeof base) =>
      Math.max(
        ...d.events.flatMap((e) =>
          e.type === 'lifecycle' && e.phase === 'joined' ? [Date.parse(e.at)] : [],
        ),
      ) - Date.parse(d.run.startedAt as string);
    expect(lastJoin(streaming)).toBeLessThan(lastJoin(base));
    const peakCpu = (d: typeof base) =>
      Math.max(
        ...d.statsdLines('r').flatMap((l) => {
          const m = /^consul\.server\.cpu_pct:([\d.]+)\|/.exec(l);
          return m ? [Number(m[1])] : [];
        }),
      );
    expect(peakCpu(streaming)).toBeLessThan(peakCpu(base) - 10);
  });
});

describe.each(backends)('the scale-up demo on $name', (backend) => {
  const server = useMetricsServer(backend, { MESHBENCH_STATSD_FLUSH_MS: '200' });

  it('loads through the API, StatsD and OTLP into one timeline', async () => {
    const lines = scaleUpRun(consulScaleUp).statsdLines('x').length;
    const before = server.app.statsd.stats().lines;
    const run = await loadScaleUp({
      baseUrl: server.url,
      token: server.token,
      statsdPort: server.udpPort,
    });
    await until(() => server.app.statsd.stats().lines - before >= lines);
    await server.app.statsd.flush();
    const { status, body } = await server.json(`/runs/${run.id}/timeline?points=300`, {}, timeline);
    expect(status).toBe(200);
    expect(body.durationMs).toBe(consulScaleUp.durationMs);
    const joined = body.phases.find((p) => p.phase === 'joined');
    expect(joined).toMatchObject({ count: 1000, total: 1000 });
    const times = joined?.timeTo.map((t) => t.offsetMs as number) ?? [];
    expect(times.every((t, i) => t > 0 && (i === 0 || t >= (times[i - 1] as number)))).toBe(true);
    const running = body.phases.find((p) => p.phase === 'running');
    expect(running?.total).toBe(3000);
    expect(running?.timeTo.at(-1)?.offsetMs).toBeNull();
    expect(body.series.map((s) => s.name).sort()).toEqual([
      'consul.catalog.register',
      'consul.raft.commit_time',
      // The same commit times as a cumulative OTLP histogram begun an hour before the run.
      'consul.raft.commit_time.cumulative',
      'consul.raft.commit_time.exponential',
      'consul.rpc.request',
      'consul.server.cpu_pct',
      'consul.server.memory_mb',
      'consul.xds.push_ms',
      'consul.xds.pushes',
      'consul.xds.server.streams',
    ]);
    // Control-plane CPU: about 43 % while scaling, 5-10 % after.
    const cpu = body.series.find((s) => s.name === 'consul.server.cpu_pct');
    const values = cpu?.points.map((p) => p.value as number) ?? [];
    expect(Math.max(...values)).toBeGreaterThan(35);
    expect(values.at(-1)).toBeLessThan(10);
    // A stream begun an hour before the run is counted from its last point before it: the
    // run sees the requests served in it, not the 50,000 served before.
    const series = await server.json(`/runs/${run.id}/series`, {}, seriesList);
    const rpc = series.body.find((s) => s.name === 'consul.rpc.request');
    const register = series.body.find((s) => s.name === 'consul.catalog.register');
    const points = (consulScaleUp.durationMs - 10_000) / 10_000;
    expect(rpc?.stats.sum).toBe(points * 1_000 + (register?.stats.sum as number));
    // Exact and estimated percentiles side by side: StatsD timer samples kept as they are,
    // the same commit times in explicit and in exponential buckets, each with its bound.
    const asked = await server.json(`/runs/${run.id}/series?percentiles=50,99`, {}, seriesList);
    const stats = (name: string) => asked.body.find((s) => s.name === name)?.stats;
    expect(stats('consul.xds.push_ms')?.percentiles?.every((q) => q.exact)).toBe(true);
    const explicit = stats('consul.raft.commit_time');
    const exponential = stats('consul.raft.commit_time.exponential');
    expect(exponential?.count).toBe(explicit?.count);
    for (const [i, q] of (exponential?.percentiles ?? []).entries()) {
      const e = explicit?.percentiles?.[i] as QuantileValue;
      expect(q).toMatchObject({ exact: false, method: 'exponential-histogram' });
      expect(e).toMatchObject({ exact: false, method: 'explicit-histogram' });
      // Both bounds hold the same true value: they overlap, the exponential one narrower.
      expect(q.lower as number).toBeLessThanOrEqual(e.upper ?? Number.POSITIVE_INFINITY);
      expect(q.upper as number).toBeGreaterThanOrEqual(e.lower ?? Number.NEGATIVE_INFINITY);
      expect((q.upper as number) / (q.lower as number)).toBeLessThan(1.05);
    }
  });
});
