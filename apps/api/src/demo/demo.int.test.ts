// The whole demo dataset, as `npm start` loads it on first run, posted through the public
// paths (events API, result uploads, StatsD over UDP, OTLP) into a running app: every run it
// declares is there, with what each kind of run is meant to show.
import {
  changeList,
  propagation,
  runPropagation,
  storedLoadResult,
  timeline as timelineAnswer,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends } from '../test/harness.ts';
import { until, useMetricsServer } from '../test/metrics-harness.ts';
import { istioChurnScenario } from './churn.ts';
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
      propagationScenarios.length + dataPlaneMeshes.length + scaleUpScenarios.length + 1,
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
    // Churn: 20 changes, each reaching every proxy; the slow tail grows during the backlog.
    const churn = runs[runs.length - 1]!;
    const s = istioChurnScenario;
    const proxies = s.nodes * s.proxiesPerNode;
    const churnAnswer = await server.json(`/runs/${churn.id}/propagation`, {}, runPropagation);
    expect(churnAnswer.status).toBe(200);
    const { changes: rows, pooled, perChangeP99, heatmap } = churnAnswer.body;
    expect(rows).toHaveLength(s.changes);
    for (const row of rows) expect(row.count).toBe(proxies);
    expect(pooled.count).toBe(s.changes * proxies);
    expect(perChangeP99.count).toBe(s.changes);
    // The backlog's worst change is slower at P99 than any change before it.
    const p99 = (i: number) => rows[i]!.percentiles.find((p) => p.p === 99)!.ms;
    const calm = Math.max(...rows.slice(0, s.backlog.from).map((_, i) => p99(i)));
    expect(p99(s.backlog.to)).toBeGreaterThan(calm * 2);
    expect(heatmap.rows.map((r) => r.counts.reduce((a, b) => a + b, 0))).toEqual(
      rows.map(() => proxies),
    );

    const after = server.app.statsd.stats();
    expect(after.malformed - before.malformed).toBe(0);
    expect(after.unmatched - before.unmatched).toBe(0);
  }, 180_000);
});
