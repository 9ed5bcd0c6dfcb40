// The demo dataset that `npm start` shows on first run, posted through the public API.
import type { Run } from '@meshbench/schema';
import { churnRun, istioChurnScenario } from './churn.ts';
import { apiClient } from './client.ts';
import {
  CONNECTIONS,
  cpuSweepCsv,
  dataPlaneMeshes,
  dataPlaneRun,
  fortioResult,
  k6SmokeSummary,
  MODES,
} from './data-plane.ts';
import { endpointPropagationRun, propagationScenarios } from './endpoint-propagation.ts';
import { kubernetesScaleUpScenarios, loadKubernetesScaleUp } from './kubernetes-scale-up.ts';
import { startLiveScaleUp } from './live.ts';
import { loadLocustStages } from './locust.ts';
import { NIGHTLY_MESHES, nightlyRuns } from './nightly.ts';
import { loadOtlpLogsPropagation } from './otlp-logs.ts';
import { loadScaleUp, scaleUpScenarios } from './scale-up.ts';
import { loadStages } from './stages.ts';

export { churnRun, istioChurnScenario } from './churn.ts';
export { apiClient } from './client.ts';
export { dataPlaneMeshes, dataPlaneRun, fortioResult } from './data-plane.ts';
export {
  consulScenario,
  endpointPropagationRun,
  istioScenario,
  linkerdScenario,
  propagationScenarios,
  scenarioProxies,
} from './endpoint-propagation.ts';
export {
  istioKubernetesScaleUp,
  kubernetesScaleUpRun,
  kubernetesScaleUpScenarios,
  linkerdKubernetesScaleUp,
} from './kubernetes-scale-up.ts';
export { startLiveScaleUp } from './live.ts';
export { istioLocustScenario, loadLocustStages, locustStageReports } from './locust.ts';
export { NIGHTLY_MESHES, NIGHTS, nightlyRun, nightlyRuns, REGRESSION_NIGHT } from './nightly.ts';
export {
  loadOtlpLogsPropagation,
  OTLP_LOGS_LABEL,
  otlpLogsScenario,
  probeLogRecord,
} from './otlp-logs.ts';
export {
  consulScaleUp,
  consulStreamingScaleUp,
  loadScaleUp,
  scaleUpRun,
  scaleUpScenarios,
  sendOtlp,
} from './scale-up.ts';
export { istioStagesScenario, loadStages, stagesLogs } from './stages.ts';

export async function loadDemo(opts: {
  baseUrl: string;
  token?: string | undefined;
  /** The app's StatsD port (0: off, the scale-up run then has no StatsD series). */
  statsdPort?: number;
  log?: (message: string) => void;
  /** A scale-up posted as it happens for this long (ms) beside the rest; 0 or unset: none. */
  liveMs?: number;
  /** Called as each run is in place: runs so far, and of how many (demoRunCount). */
  onProgress?: (loaded: number, total: number) => void;
}): Promise<Run[]> {
  const api = apiClient(opts.baseUrl, opts.token);
  const total = demoRunCount(opts);
  const runs: Run[] = [];
  // The live run counts once it exists (its page moves from then on), not when it ends.
  let counted = 0;
  const count = () => opts.onProgress?.(++counted, total);
  const loaded = {
    push(run: Run) {
      runs.push(run);
      count();
    },
    at: (i: number) => runs.at(i),
  };
  // First, so that it is there to open while the rest loads.
  const live = opts.liveMs ? await startLiveScaleUp({ ...opts, durationMs: opts.liveMs }) : null;
  if (live) count();

  // Control plane: one endpoint change reaching 20,000 proxies, on each mesh.
  for (const scenario of propagationScenarios) {
    const { run, events } = endpointPropagationRun(scenario);
    const { finishedAt, ...started } = run;
    const created = await api.createRun(started);
    await api.postEvents(created.id, events, `demo-${scenario.seed}`);
    loaded.push(await api.finishRun(created.id, finishedAt));
  }

  // Data plane: each point is the Fortio file Fortio wrote, posted as it is.
  for (const mesh of dataPlaneMeshes) {
    const { run: body, start } = dataPlaneRun(mesh);
    const { finishedAt: end, ...begun } = body;
    const dp = await api.createRun(begun);
    let minute = 0;
    for (const mode of MODES) {
      for (const connections of CONNECTIONS) {
        const at = new Date(start.getTime() + minute++ * 60_000);
        await api.postResults(dp.id, fortioResult(mesh, mode, connections, at), 'fortio');
      }
    }
    await api.postResults(dp.id, cpuSweepCsv(mesh, start), 'istio-csv');
    // The CI's k6 smoke check before the sweep: k6's own threshold verdict is kept and shown.
    await api.postResults(dp.id, k6SmokeSummary(mesh), 'k6');
    loaded.push(await api.finishRun(dp.id, end));
  }
  // Scale-up, twice (two versions to compare): lifecycle events, StatsD over UDP and OTLP
  // from the SDK, all time-stamped.
  for (const scenario of scaleUpScenarios) loaded.push(await loadScaleUp(opts, scenario));
  // Scale-up on Kubernetes: Istio and Linkerd, their control planes' own metric names, sent
  // as their Prometheus remote-writes them.
  for (const scenario of kubernetesScaleUpScenarios) {
    loaded.push(await loadKubernetesScaleUp(opts, scenario));
  }
  // Data plane in stages (the Istio 500k RPS exercise): three load generators, each posting
  // the HdrHistogram interval log it wrote.
  loaded.push(await loadStages(opts));
  // The same exercise driven by Locust as its team did: a run per stage of users, each
  // stage's --json report (its workers merged by the master) posted as written.
  loaded.push(await loadLocustStages(opts));
  // Control plane again, its probes exporting their events as OpenTelemetry logs (/v1/logs)
  // through the OpenTelemetry SDK, as a probe or a Collector tailing Envoy's log would.
  loaded.push(await loadOtlpLogsPropagation(opts));

  // Churn: 20 endpoint changes 5 s apart, each reaching 1,000 proxies (the run's heatmap).
  const churn = churnRun(istioChurnScenario);
  const { finishedAt: churnEnd, ...churnStart } = churn.run;
  const churned = await api.createRun(churnStart);
  await api.postEvents(churned.id, churn.events, `demo-${istioChurnScenario.seed}`);
  loaded.push(await api.finishRun(churned.id, churnEnd));

  // History: a nightly series on main, Consul and Istio, with one regression to find. After
  // the first night the team adds the CI gate it holds each night to: P99 no more than 10 %
  // over the median of the mesh's last 3 nights on main (the bootstrap interval and the noise
  // floor decide what is real).
  const nightly = [...nightlyRuns()];
  for (const [i, { run, events }] of nightly.entries()) {
    if (i === NIGHTLY_MESHES.length) {
      const projectId = loaded.at(-1)?.projectId;
      if (projectId) {
        await api.createThreshold(projectId, {
          benchmark: run.benchmark,
          scenario: run.scenario,
          rule: 'p99>+10%',
          baseline: 'branch:main',
          last: 3,
        });
      }
    }
    const { finishedAt, ...started } = run;
    const created = await api.createRun(started);
    await api.postEvents(created.id, events, `demo-nightly-${created.id}`);
    loaded.push(await api.finishRun(created.id, finishedAt));
  }

  if (live) runs.push(await live.done);
  return runs;
}

/** How many runs loadDemo posts: what its progress counts up to. */
export function demoRunCount(opts: { liveMs?: number }): number {
  return (
    propagationScenarios.length +
    dataPlaneMeshes.length +
    scaleUpScenarios.length +
    kubernetesScaleUpScenarios.length +
    // stages, Locust stages, OTLP logs, churn
    4 +
    [...nightlyRuns()].length +
    (opts.liveMs ? 1 : 0)
  );
}
