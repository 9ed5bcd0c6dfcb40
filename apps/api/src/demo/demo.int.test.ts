// The whole demo dataset, as `npm start` loads it on first run, posted through the public
// paths (events API, result uploads, StatsD over UDP, OTLP) into a running app: every run it
// declares is there, with what each kind of run is meant to show.
import {
  changeList,
  propagation,
  stageGap,
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
      // A run with received observations too: two stages, every applying proxy received it
      // a few ms to tens of ms before, a few of them seconds before.
      const stages = summary.body.stages.map((s) => s.stage);
      expect(stages).toEqual(scenario.received ? ['received', 'applied'] : ['applied']);
      if (scenario.received) {
        const gap = await server.json(
          `/runs/${run.id}/changes/${changes.body[0]!.id}/stages/gap?percentiles=50,99.9`,
          {},
          stageGap,
        );
        expect(gap.body).toMatchObject({ from: 'received', to: 'applied', onlyFrom: 0, onlyTo: 0 });
        expect(gap.body.count).toBe(summary.body.count);
        const [p50, p999] = gap.body.percentiles.map((p) => p.ms);
        expect(p50).toBeGreaterThan(2);
        expect(p50).toBeLessThan(30);
        expect(p999).toBeGreaterThan(500);
      }
    }

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
