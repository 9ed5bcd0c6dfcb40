// A data-plane run in stages, shaped like the Istio 500k RPS exercise (Tetrate, Istio 1.9.8:
// about 1,000, 5,000 and 25,000 RPS, then 500,000 RPS, with p99 to stay under 5x the median):
// three load generators each drive a third of every stage and write an HdrHistogram interval
// log (1 s intervals, latencies in microseconds, 3 significant digits) with
// hdr-histogram-js's HistogramLogWriter, each line tagged with its stage. Each log is posted
// as the generator wrote it, through the results API.
//
// What the stages view should show: stage 2 (5,000 RPS) jagged, its P99 far above the band
// at times (pods autoscaling out of step); at 500,000 RPS one generator (gen-c) short of its
// share by about 8 % and saturated (it reports 97 % CPU).
import type { CreateRunBody, Run } from '@meshbench/schema';
import * as hdr from 'hdr-histogram-js';
import { apiClient } from './client.ts';
import { prng } from './prng.ts';

export interface StagesScenario {
  seed: number;
  start: string;
  stages: { targetRps: number; seconds: number; medianMs: number; jagged?: boolean }[];
  generators: { name: string; cpu: number; shortfall?: number }[];
  connections: number;
}

export const istioStagesScenario: StagesScenario = {
  seed: 20210916,
  start: '2026-02-05T09:00:00.000Z',
  connections: 1024,
  stages: [
    { targetRps: 1_000, seconds: 60, medianMs: 3.1 },
    { targetRps: 5_000, seconds: 60, medianMs: 3.6, jagged: true },
    { targetRps: 25_000, seconds: 60, medianMs: 4.2 },
    { targetRps: 500_000, seconds: 120, medianMs: 5.8 },
  ],
  generators: [
    { name: 'gen-a', cpu: 0.71 },
    { name: 'gen-b', cpu: 0.74 },
    // Short of its share at the top rate, and saturated: flagged by the stages view.
    { name: 'gen-c', cpu: 0.97, shortfall: 0.08 },
  ],
};

/** Distinct latencies drawn per interval; each carries an equal share of the requests. */
const DRAWS = 400;

/** Each generator's HdrHistogram interval log, as HistogramLogWriter writes it. */
export function stagesLogs(s: StagesScenario): { generator: string; cpu: number; log: string }[] {
  const t0 = Date.parse(s.start);
  return s.generators.map((g, gi) => {
    const rnd = prng(s.seed + gi);
    let log = '';
    const writer = new hdr.HistogramLogWriter((line) => {
      log += line;
    });
    writer.outputLogFormatVersion();
    writer.outputStartTime(t0);
    writer.outputLegend();
    let second = 0;
    for (const stage of s.stages) {
      const top = stage === s.stages.at(-1);
      for (let k = 0; k < stage.seconds; k++, second++) {
        const share = stage.targetRps / s.generators.length;
        const rps = Math.round(share * (top && g.shortfall ? 1 - g.shortfall : 1));
        const h = hdr.build({ numberOfSignificantValueDigits: 3 });
        // A jagged stage: every few seconds the median doubles and the tail stretches.
        const spike = stage.jagged && rnd.chance(0.2);
        const median = stage.medianMs * (spike ? 2 : 1) * rnd.uniform(0.95, 1.05);
        const sigma = spike ? 0.9 : 0.45;
        const per = Math.floor(rps / DRAWS);
        for (let d = 0; d < DRAWS; d++) {
          const count = per + (d < rps - per * DRAWS ? 1 : 0);
          if (count > 0)
            h.recordValueWithCount(Math.round(rnd.logNormal(median, sigma) * 1000), count);
        }
        h.tag = `mode:http;connections:${s.connections};targetRps:${stage.targetRps}`;
        writer.outputIntervalHistogram(h, second, second + 1, 1000);
        h.destroy();
      }
    }
    return { generator: g.name, cpu: g.cpu, log };
  });
}

export function stagesRunBody(s: StagesScenario): CreateRunBody {
  const seconds = s.stages.reduce((n, x) => n + x.seconds, 0);
  return {
    benchmark: 'istio-500k',
    scenario: 'stages',
    mesh: { name: 'istio', version: '1.9.8' },
    platform: 'kubernetes',
    topology: { nodes: 40, services: 2, instances: 160 },
    environment: 'demo',
    labels: { source: 'demo', branch: 'main', seed: String(s.seed), generators: '3' },
    startedAt: new Date(Date.parse(s.start)).toISOString(),
    finishedAt: new Date(Date.parse(s.start) + seconds * 1000).toISOString(),
  };
}

/** Posts the stages run: one HdrHistogram interval log per generator, as written. */
export async function loadStages(
  opts: { baseUrl: string; token?: string | undefined },
  s: StagesScenario = istioStagesScenario,
): Promise<Run> {
  const api = apiClient(opts.baseUrl, opts.token);
  const { finishedAt, ...started } = stagesRunBody(s);
  const run = await api.createRun(started);
  for (const { generator, cpu, log } of stagesLogs(s)) {
    await api.postResults(run.id, log, 'hdr-log', { generator, generatorCpu: cpu, unit: 'us' });
  }
  return api.finishRun(run.id, finishedAt);
}
