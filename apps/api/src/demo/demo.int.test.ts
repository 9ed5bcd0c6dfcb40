// The whole demo dataset, as `npm start` loads it on first run, posted through the public
// paths (events API, result uploads, StatsD over UDP, OTLP) into a running app: every run it
// declares is there, with what each kind of run is meant to show.

import { openDatabase } from '@meshbench/db';
import {
  changeList,
  gateResult,
  history,
  ingestStats,
  loadStages,
  propagation,
  run,
  runClocks,
  runHeadlines,
  runPropagation,
  seriesList,
  stageGap,
  storedLoadResult,
  timeline as timelineAnswer,
} from '@meshbench/schema';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Backend, backends, jsonBody } from '../test/harness.ts';
import { until, useMetricsServer } from '../test/metrics-harness.ts';
import { istioChurnScenario } from './churn.ts';
import { CONNECTIONS, cpuSweepCsv, dataPlaneMeshes, MODES } from './data-plane.ts';
import {
  endpointPropagationRun,
  propagationScenarios,
  scenarioProxies,
} from './endpoint-propagation.ts';
import { apiClient, demoRunCount, loadDemo } from './index.ts';
import { kubernetesScaleUpRun, kubernetesScaleUpScenarios } from './kubernetes-scale-up.ts';
import { istioLocustScenario, locustStageReports } from './locust.ts';
import { NIGHTLY_MESHES, NIGHTS, REGRESSION_NIGHT } from './nightly.ts';
import { OTLP_LOGS_LABEL, otlpLogsScenario } from './otlp-logs.ts';
import { scaleUpRun, scaleUpScenarios } from './scale-up.ts';
import { istioStagesScenario } from './stages.ts';

/**
 * The demo is loaded into an empty database, as `npm start` does: on Postgres a database of
 * its own, dropped afterwards (the shared one holds other suites' runs, and earlier loads of
 * this one, whose nightly runs would join the history).
 */
function emptyDatabase(backend: Backend): Backend {
  const url = process.env.DATABASE_URL;
  if (backend.name !== 'postgres' || !url) return backend;
  const name = `meshbench_demo_${process.pid}_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  afterAll(() => admin(`drop database if exists ${name} with (force)`));
  return {
    name: backend.name,
    open: async () => {
      await admin(`create database ${name}`);
      const own = new URL(url);
      own.pathname = `/${name}`;
      return openDatabase({ url: own.toString(), poolSize: 4 });
    },
  };
}

describe.each(backends)('the demo dataset on $name', (backend) => {
  const server = useMetricsServer(emptyDatabase(backend), { MESHBENCH_STATSD_FLUSH_MS: '200' });

  it('loads every run it declares, each showing what it is for', async () => {
    const statsdLines = scaleUpScenarios.reduce(
      (n, s) => n + scaleUpRun(s).statsdLines('x').length,
      0,
    );
    const before = server.app.statsd.stats();
    const progress: [number, number][] = [];
    const runs = await loadDemo({
      baseUrl: server.url,
      token: server.token,
      statsdPort: server.udpPort,
      onProgress: (loaded, total) => progress.push([loaded, total]),
    });
    // The runs list's "loading the demo: 12 of 60 runs": one step per run, to the total.
    expect(progress.map(([n]) => n)).toEqual(runs.map((_, i) => i + 1));
    expect(new Set(progress.map(([, total]) => total))).toEqual(new Set([runs.length]));
    expect(demoRunCount({})).toBe(runs.length);
    expect(runs).toHaveLength(
      propagationScenarios.length +
        dataPlaneMeshes.length +
        scaleUpScenarios.length +
        kubernetesScaleUpScenarios.length +
        // stages (HdrHistogram logs), stages (Locust), propagation over OTLP logs, churn
        4 +
        NIGHTS * NIGHTLY_MESHES.length,
    );
    for (const run of runs) expect(run.status).toBe('finished');

    // Control plane: one change reaching every proxy of the scenario (all but a dead node's).
    // Consul's global-scale benchmark ran on Nomad; Istio and Linkerd run on Kubernetes.
    const platformOf: Record<string, string> = {
      consul: 'nomad',
      istio: 'kubernetes',
      linkerd: 'kubernetes',
    };
    for (const [i, scenario] of propagationScenarios.entries()) {
      const run = runs[i]!;
      expect(run.platform, scenario.mesh.name).toBe(platformOf[scenario.mesh.name]);
      const changes = await server.json(`/runs/${run.id}/changes`, {}, changeList);
      expect(changes.body).toHaveLength(1);
      const summary = await server.json(
        `/runs/${run.id}/changes/${changes.body[0]!.id}/propagation`,
        {},
        propagation,
      );
      expect(summary.status).toBe(200);
      // Every node's proxies and the big slow node's.
      const proxies = scenario.nodes * scenario.proxiesPerNode + scenario.slowNode.proxies;
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
      // The k6 smoke check: k6's own verdict, its P95 threshold crossed (2 x hop + 0.6 ms,
      // x 1.9, is over 2 ms for both meshes), its failure rate one held.
      const k6 = results.body.find((r) => r.format === 'k6');
      expect(k6?.thresholds).toEqual([
        { metric: 'http_req_duration', threshold: 'p(95)<2', ok: false },
        { metric: 'http_req_failed', threshold: 'rate<0.01', ok: true },
      ]);
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
      // A cumulative histogram begun an hour before the run: its min and max are the
      // stream's (0.2 and 4000 ms, never reached in the run), not stated as the run's; its
      // first increase counts from its point 10 s before the run.
      const list = await server.json(`/runs/${run.id}/series`, {}, seriesList);
      const cumulative = list.body.find((x) => x.name === 'consul.raft.commit_time.cumulative');
      expect(cumulative?.stats).toMatchObject({
        min: null,
        max: null,
        streamMin: 0.2,
        streamMax: 4000,
        beforeRunMs: 10_000,
      });
    }
    // Kubernetes: nodes, pods and their sidecars' connections; the control plane's own
    // metric names, one series per control-plane pod.
    for (const [i, scenario] of kubernetesScaleUpScenarios.entries()) {
      const at = propagationScenarios.length + dataPlaneMeshes.length + scaleUpScenarios.length + i;
      const run = runs[at]!;
      expect(run.mesh.name).toBe(scenario.mesh);
      const timeline = await server.json(`/runs/${run.id}/timeline?points=200`, {}, timelineAnswer);
      const connected = timeline.body.phases.find((p) => p.phase === 'proxy-connected')!;
      expect(connected).toMatchObject({ count: scenario.pods, total: scenario.pods });
      // Time to 100 %: the last sidecar's connection (its event stamped in whole ms), from
      // the run's start.
      const last = kubernetesScaleUpRun(scenario).connected.at(-1)!;
      expect(connected.timeTo.find((t) => t.percent === 100)!.offsetMs).toBe(
        Math.trunc(last) - Date.parse(scenario.start),
      );
      const names = new Set(timeline.body.series.map((s) => s.name));
      const own =
        scenario.mesh === 'istio'
          ? ['pilot_xds', 'pilot_xds_pushes', 'pilot_proxy_convergence_time']
          : ['endpoints_subscribers', 'endpoints_updates', 'endpointslices_informer_lag_seconds'];
      for (const name of [...own, 'process_cpu_seconds_total', 'process_resident_memory_bytes'])
        expect(names.has(name), name).toBe(true);
      // Through remote write, a histogram family as one series.
      expect(new Set(timeline.body.series.map((s) => s.source))).toEqual(new Set(['prometheus']));
      expect([...names].filter((n) => /_(bucket|sum|count)$/.test(n))).toEqual([]);
      const cpuPods = timeline.body.series
        .filter((s) => s.name === 'process_cpu_seconds_total')
        .map((s) => s.tags.pod)
        .sort();
      expect(cpuPods).toEqual([...scenario.controlPlane].sort());
      // Each control-plane pod's CPU seconds get a figure in cores, steady after the whole
      // ramp (the last sidecar connected), well after the last node joined.
      for (const cpu of timeline.body.series.filter(
        (x) => x.name === 'process_cpu_seconds_total',
      )) {
        expect(cpu.levels?.unit).toBe('cores');
        expect(cpu.levels?.peak).toBeGreaterThan(0);
        expect(cpu.levels?.steady).toBeGreaterThan(0);
        expect(cpu.levels!.steady!).toBeLessThan(cpu.levels!.peak!);
      }
      expect(timeline.body.steadyFrom?.phase).toBe('proxy-connected');
    }
    // Stages: three generators' HdrHistogram logs merged per stage and per second.
    {
      const at =
        propagationScenarios.length +
        dataPlaneMeshes.length +
        scaleUpScenarios.length +
        kubernetesScaleUpScenarios.length;
      const run = runs[at]!;
      const sc = istioStagesScenario;
      const view = await server.json(
        `/runs/${run.id}/results/stages?percentiles=50,99`,
        {},
        loadStages,
      );
      expect(view.status).toBe(200);
      expect(view.body.stages.map((st) => st.targetRps)).toEqual(
        sc.stages.map((st) => st.targetRps),
      );
      for (const [k, st] of sc.stages.entries()) {
        const top = k === sc.stages.length - 1;
        // Each generator sends its third of the rate (less its shortfall at the top) every second.
        const perSecond = sc.generators.reduce(
          (n, g) =>
            n +
            Math.round(
              (st.targetRps / sc.generators.length) * (top && g.shortfall ? 1 - g.shortfall : 1),
            ),
          0,
        );
        const stage = view.body.stages[k]!;
        expect(stage.requests).toBe(perSecond * st.seconds);
        expect(stage.generators.map((g) => g.name).sort()).toEqual(['gen-a', 'gen-b', 'gen-c']);
        const flagged = stage.generators
          .filter((g) => g.shortfall || g.saturated)
          .map((g) => g.name);
        // gen-c reports 97 % CPU throughout; it falls short only at the top rate.
        expect(flagged).toEqual(['gen-c']);
        expect(stage.generators.find((g) => g.name === 'gen-c')!.shortfall).toBe(top);
      }
      expect(view.body.series).toHaveLength(sc.stages.reduce((n, st) => n + st.seconds, 0));
      // The runs list's headline: P99 at the top rate from the three generators' merged
      // histograms, the same figure as the top stage's, never the slowest generator's own.
      const top = await server.json(
        `/runs/${run.id}/results/stages?percentiles=99`,
        {},
        loadStages,
      );
      const merged = top.body.stages.at(-1)!.percentiles[0]!.ms;
      const [headline] = (await server.json(`/runs/headlines?ids=${run.id}`, {}, runHeadlines))
        .body;
      expect(headline).toMatchObject({ kind: 'data-plane', rps: 500_000, generators: 3 });
      expect(headline?.kind === 'data-plane' && headline.p99?.ms).toBe(merged);
      const results = await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult));
      const own = results.body
        .filter((r) => r.generator !== null && r.targetRps === 500_000)
        .map((r) => r.percentiles.find((p) => p.p === 99)!.ms);
      expect(Math.max(...own)).toBeGreaterThan(merged);
      // The jagged stage breaks the p99 < 5 x median band at times; the calm ones do not.
      const ratio = (slot: (typeof view.body.series)[number]) =>
        slot.percentiles[1]!.ms / slot.percentiles[0]!.ms;
      const jagged = view.body.series.slice(60, 120);
      expect(jagged.some((slot) => ratio(slot) > 5)).toBe(true);
      expect(view.body.series.slice(0, 60).every((slot) => ratio(slot) < 5)).toBe(true);
      // The same stages driven by Locust: each stage's --json report, its users as connections,
      // every point's counts and rate those of the report, each percentile the key at the
      // nearest rank of the report's buckets, bounded by the raw range Locust rounded to it.
      const locust = runs[at + 1]!;
      const points = (
        await server.json(`/runs/${locust.id}/results`, {}, z.array(storedLoadResult))
      ).body;
      const reports = locustStageReports(istioLocustScenario);
      const endpoints = istioLocustScenario.endpoints.length;
      expect(points).toHaveLength(reports.length * (endpoints + 1));
      for (const [k, report] of reports.entries()) {
        const stagePoints = points.slice(k * (endpoints + 1), (k + 1) * (endpoints + 1));
        const total = stagePoints[0]!;
        expect(total).toMatchObject({
          format: 'locust',
          mode: 'http',
          connections: report.users,
          labels: { aggregated: 'true' },
        });
        const counts = new Map<number, number>();
        for (const e of report.entries)
          for (const [key, n] of Object.entries(e.response_times))
            counts.set(Number(key), (counts.get(Number(key)) ?? 0) + n);
        const requests = report.entries.reduce((n, e) => n + e.num_requests, 0);
        expect(total.requests).toBe(requests);
        expect(total.errors).toBe(report.entries.reduce((n, e) => n + e.num_failures, 0));
        const span =
          Math.max(...report.entries.map((e) => e.last_request_timestamp)) -
          Math.min(...report.entries.map((e) => e.start_time));
        expect(total.achievedRps).toBeCloseTo(requests / span, 6);
        // The achieved rate is the stage's (the users keep it).
        expect(Math.abs(total.achievedRps! / report.rps - 1)).toBeLessThan(0.01);
        const keys = [...counts].sort((a, b) => a[0] - b[0]);
        for (const q of total.percentiles) {
          const rank = Math.max(1, Math.ceil((q.p / 100) * requests - 1e-9));
          let seen = 0;
          let key = Number.NaN;
          for (const [k2, n] of keys) {
            seen += n;
            if (seen >= rank) {
              key = k2;
              break;
            }
          }
          // Whole ms under 100 ms, tens of ms under 1 s (100 also takes [99.5, 100)).
          const [lo, hi] =
            key < 100 ? [key - 0.5, key + 0.5] : [key === 100 ? 99.5 : key - 5, key + 5];
          expect(key).toBeLessThan(1000);
          expect(q.lower).toBeGreaterThanOrEqual(lo);
          expect(q.upper).toBeLessThanOrEqual(hi);
          expect(q.ms).toBeGreaterThanOrEqual(q.lower!);
          expect(q.ms).toBeLessThanOrEqual(q.upper!);
          expect(q).toMatchObject({ exact: false, method: 'tool-histogram' });
        }
      }
      // Its headline: P99 at the top rate, from the top stage's merged buckets.
      const [locustHeadline] = (
        await server.json(`/runs/headlines?ids=${locust.id}`, {}, runHeadlines)
      ).body;
      const topTotal = points[(reports.length - 1) * (endpoints + 1)]!;
      expect(locustHeadline?.kind === 'data-plane' && locustHeadline.p99?.ms).toBe(
        topTotal.percentiles.find((q) => q.p === 99)!.ms,
      );
    }
    // Probes exporting OpenTelemetry logs (the SDK to /v1/logs): the run holds exactly what the
    // same events store through the events API, and summarises the same.
    {
      const at =
        propagationScenarios.length +
        dataPlaneMeshes.length +
        scaleUpScenarios.length +
        kubernetesScaleUpScenarios.length +
        2; // after the stages runs (HdrHistogram logs, Locust)
      const viaLogs = runs[at]!;
      expect(viaLogs.labels).toMatchObject(OTLP_LOGS_LABEL);
      const { run: body, events } = endpointPropagationRun(otlpLogsScenario);
      const { finishedAt, ...started } = body;
      const viaEvents = await server.json('/runs', jsonBody(started), run);
      expect(viaEvents.status).toBe(201);
      const posted = await server.api(`/runs/${viaEvents.body.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: events.map((e) => JSON.stringify(e)).join('\n'),
      });
      expect(posted.status).toBe(200);
      // Finished as the demo finishes its run: a finished run's clock correction is computed.
      await apiClient(server.url, server.token).finishRun(viaEvents.body.id, finishedAt);
      const exported = async (id: string) =>
        (await (await server.api(`/runs/${id}/events`)).text()).trim().split('\n').sort();
      const stored = await exported(viaLogs.id);
      expect(stored).toHaveLength(events.length);
      expect(stored).toEqual(await exported(viaEvents.body.id));
      const summaryOf = async (id: string) => {
        const answer = await server.json(
          `/runs/${id}/changes/hey-endpoint-delete/propagation?percentiles=50,96,99&withinMs=1000`,
          {},
          propagation,
        );
        expect(answer.status).toBe(200);
        const { computedAt: __, ...summary } = answer.body;
        return summary;
      };
      const logsSummary = await summaryOf(viaLogs.id);
      expect(logsSummary.count).toBeGreaterThan(scenarioProxies(otlpLogsScenario) * 0.99);
      expect(logsSummary).toEqual(await summaryOf(viaEvents.body.id));
      const ingest = await server.json('/ingest/stats', {}, ingestStats);
      expect(ingest.body.otlpLogs).toMatchObject({
        records: events.length,
        events: events.length,
        rejected: 0,
        duplicates: 0,
      });
    }

    // Churn: 20 changes, each reaching every proxy; the slow tail grows during the backlog.
    const churn = runs[runs.length - 1 - NIGHTS * NIGHTLY_MESHES.length]!;
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
    // Its headline is pooled over the 20 changes, with the worst change named: never the
    // first change alone (calm, before the backlog).
    const [churnHeadline] = (await server.json(`/runs/headlines?ids=${churn.id}`, {}, runHeadlines))
      .body;
    const worst = Math.max(...perChangeP99.values.map((v) => v.ms));
    expect(churnHeadline).toMatchObject({
      kind: 'propagation',
      summary: 'pooled',
      changes: s.changes,
      count: s.changes * proxies,
      p99: { ms: pooled.percentiles.find((p) => p.p === 99)!.ms },
      worst: { p99Ms: worst },
    });
    expect(worst).toBeGreaterThan(p99(0));
    // History: the nightly series on main, and the one regression planted in it (Consul's
    // changes 25 % slower from night REGRESSION_NIGHT on) found where it was planted.
    const nightly = runs.slice(runs.length - NIGHTS * NIGHTLY_MESHES.length);
    const hist = await server.json(
      '/history?benchmark=global-scale&scenario=nightly-endpoint-propagation&metric=p99&branch=main',
      {},
      history,
    );
    expect(hist.body.points.map((p) => p.runId)).toEqual(nightly.map((r) => r.id));
    const consulNights = nightly.filter((r) => r.mesh.name === 'consul');
    expect(hist.body.changePoints.map((c) => [c.mesh, c.runId])).toEqual([
      ['consul', consulNights[REGRESSION_NIGHT]?.id],
    ]);
    expect(hist.body.changePoints[0]?.change).toBeGreaterThan(0.15);
    // The nightly gate (P99 at most 10 % over the median of the mesh's last 3 nights on main,
    // set after the first night) fails the two Consul nights whose baseline is still the old
    // speed, and no other night.
    const failed: string[] = [];
    for (const r of nightly.slice(NIGHTLY_MESHES.length)) {
      const g = await server.json(`/runs/${r.id}/gate`, {}, gateResult);
      expect(g.status).toBe(200);
      if (!g.body.passed) failed.push(r.id);
    }
    expect(failed).toEqual([
      consulNights[REGRESSION_NIGHT]?.id,
      consulNights[REGRESSION_NIGHT + 1]?.id,
    ]);

    const after = server.app.statsd.stats();
    expect(after.malformed - before.malformed).toBe(0);
    expect(after.unmatched - before.unmatched).toBe(0);
  }, 180_000);
});
