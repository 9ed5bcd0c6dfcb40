// The whole demo dataset, as `npm start` loads it on first run, posted through the public
// paths (events API, result uploads, StatsD over UDP, OTLP) into a running app: every run it
// declares is there, with what each kind of run is meant to show.
import {
  changeList,
  propagation,
  runClocks,
  storedLoadResult,
  timeline as timelineAnswer,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends } from '../test/harness.ts';
import { until, useMetricsServer } from '../test/metrics-harness.ts';
import { CONNECTIONS, cpuSweepCsv, dataPlaneMeshes, MODES } from './data-plane.ts';
import { propagationScenarios } from './endpoint-propagation.ts';
import { loadDemo } from './index.ts';
import { scaleUpRun, scaleUpScenarios } from './scale-up.ts';

describe.each(backends)('the demo dataset on $name', (backend) => {
  const server = useMetricsServer(backend, { MESHBENCH_STATSD_FLUSH_MS: '200' });

  it('loads every run it declares, each showing what it is for', async () => {
    const statsdLines = scaleUpScenarios.reduce(
      (n, s) => n + scaleUpRun(s).statsdLines('x').length,
      0,
    );
    const before = server.app.statsd.stats();
    const runs = await loadDemo({
      baseUrl: server.url,
      token: server.token,
      statsdPort: server.udpPort,
    });
    expect(runs).toHaveLength(
      propagationScenarios.length + dataPlaneMeshes.length + scaleUpScenarios.length,
    );
    for (const run of runs) expect(run.status).toBe('finished');

    // Control plane: one change reaching every proxy of the scenario (all but a dead node's).
    for (const [i, scenario] of propagationScenarios.entries()) {
      const run = runs[i]!;
      const changes = await server.json(`/runs/${run.id}/changes`, {}, changeList);
      expect(changes.body).toHaveLength(1);
      const summary = await server.json(
        `/runs/${run.id}/changes/${changes.body[0]!.id}/propagation`,
        {},
        propagation,
      );
      expect(summary.status).toBe(200);
      const proxies = scenario.nodes * scenario.proxiesPerNode;
      expect(summary.body.expected).toBe(proxies);
      expect(summary.body.count).toBeGreaterThan(proxies * 0.99);
      expect(summary.body.count).toBeLessThan(proxies);
      expect(summary.body.missing).toBe(proxies - summary.body.count);
      expect(summary.body.clock?.available).toBe(scenario.clocks !== undefined);
    }

    // Consul's node clocks disagree: raw latencies put some applications before the change;
    // corrected (from the clock reports) fewer, within a stated bound, for all but the nodes
    // without reports; those still behind are listed as provably off.
    const consul = runs[0]!;
    const raw = await server.json(
      `/runs/${consul.id}/changes/hey-endpoint-delete/propagation`,
      {},
      propagation,
    );
    const clock = raw.body.clock!;
    expect(raw.body.beforeChange).toBeGreaterThan(0);
    expect(clock.uncorrectedNodes).toBeGreaterThan(0);
    expect(clock.correctedNodes).toBeGreaterThan(clock.uncorrectedNodes!);
    expect(clock.nodes).toBe(clock.correctedNodes! + clock.uncorrectedNodes!);
    expect(clock.maxClockErrorMs).toBeGreaterThan(0);
    expect(clock.maxClockErrorMs).toBeLessThanOrEqual(1.2);
    expect(clock.corrected!.beforeChange).toBeLessThan(raw.body.beforeChange);
    const corrected = await server.json(
      `/runs/${consul.id}/changes/hey-endpoint-delete/propagation?clock=corrected`,
      {},
      propagation,
    );
    expect(corrected.body.percentiles.every((p) => p.method === 'clock-corrected')).toBe(true);
    const clocks = await server.json(`/runs/${consul.id}/clocks`, {}, runClocks);
    expect(clocks.body.nodes.length).toBe(clock.correctedNodes);
    expect(clocks.body.provablyBehind.length).toBeGreaterThan(0);
    expect(clocks.body.provablyBehind.some((b) => !b.hasReports)).toBe(true);

    // Data plane: a Fortio file per mode and connection count, and a result per row of the
    // CPU sweep CSV.
    for (const [i, mesh] of dataPlaneMeshes.entries()) {
      const csvRows = cpuSweepCsv(mesh, new Date()).trim().split('\n').length - 1;
      const run = runs[propagationScenarios.length + i]!;
      const results = await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult));
      const formats = results.body.map((r) => r.format);
      expect(formats.filter((f) => f === 'fortio')).toHaveLength(MODES.length * CONNECTIONS.length);
      expect(formats.filter((f) => f === 'istio-csv')).toHaveLength(csvRows);
    }

    // Scale-up: lifecycle phases, StatsD and OTLP series on one timeline.
    await until(() => server.app.statsd.stats().lines - before.lines >= statsdLines, 30_000);
    await server.app.statsd.flush();
    for (const [i] of scaleUpScenarios.entries()) {
      const run = runs[propagationScenarios.length + dataPlaneMeshes.length + i]!;
      const timeline = await server.json(`/runs/${run.id}/timeline?points=200`, {}, timelineAnswer);
      expect(timeline.body.phases.map((p) => p.phase).sort()).toEqual(
        ['joined', 'registered', 'running', 'scheduled'].sort(),
      );
      const sources = new Set(timeline.body.series.map((s) => s.source));
      expect([...sources].sort()).toEqual(['otlp', 'statsd']);
    }
    const after = server.app.statsd.stats();
    expect(after.malformed - before.malformed).toBe(0);
    expect(after.unmatched - before.unmatched).toBe(0);
  }, 180_000);
});
