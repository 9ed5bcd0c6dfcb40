// A run's facts: what a history reads of a finished run (propagation percentiles pooled over
// its changes, time to join, peak control-plane CPU, its load steps), computed from its
// reads and kept in the database (run_facts, run_metrics: at its finish, or by the
// background worker for a run that finished before they existed or was written since), so
// a history of 1,000 runs reads rows in one query and every replica reads the same.
import type { HistoryMetric, PercentileAccuracy, SeriesKind } from '@meshbench/schema';
import {
  cpuFacts,
  isJoinPhase,
  joinFacts,
  type LoadFacts,
  loadFacts,
  PROPAGATION_HISTORY_PERCENTILES,
  pooledFacts,
  propagationFacts,
  type RunFacts,
  type Valued,
} from '../domain/history-metrics.ts';
import { steadyStart } from '../domain/lifecycle.ts';
import { normalize } from '../domain/series-math.ts';
import { cpuCoresRows, isCpuSecondsCounter } from '../domain/steady-levels.ts';
import type { LifecycleRepository } from '../repositories/lifecycle.repository.ts';
import type { MetricsRepository } from '../repositories/metrics.repository.ts';
import type {
  KeptFacts,
  KeptFactsEntry,
  RunFactsRepository,
} from '../repositories/run-facts.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import type { ChurnService } from './churn.service.ts';
import type { PropagationService } from './propagation.service.ts';
import type { ResultsService } from './results.service.ts';
import { readSeriesRows } from './series-reader.ts';

/** Runs whose facts the background worker keeps at most at one tick. */
export const KEEP_BATCH = 20;
/** Runs whose facts are computed at once when none are kept yet. */
const READS_AT_ONCE = 8;

/** A control-plane CPU series: a metric named with "cpu" as a word (consul.server.cpu_pct). */
const isCpuSeries = (name: string) => /(^|[._\-/])cpu([._\-/]|$)/i.test(name);

/**
 * How a run's facts are computed, kept with them (run_metrics, beside the metrics): facts kept
 * by an older computation are computed again on their next read. 2: propagation pooled over a
 * run's changes, load steps merged over their generators and told apart by configuration, CPU
 * steady after the whole ramp and counters of CPU seconds as cores.
 */
export const FACTS_FORMULA = 2;
/** What run_metrics keeps beside the metrics: the formula, and how many changes were pooled. */
const FORMULA = 'factsFormula';
const POOLED_CHANGES = 'pooledChanges';
const META = [FORMULA, POOLED_CHANGES] as const;

/** Kept facts back as a run's facts, with the formula that computed them. */
function factsFromKept(k: KeptFacts): RunFacts & { formula: number | null } {
  const values: RunFacts['values'] = {};
  let formula: number | null = null;
  let pooledChanges: number | null = null;
  for (const m of k.metrics) {
    if (m.metric === FORMULA) formula = m.value;
    else if (m.metric === POOLED_CHANGES) pooledChanges = m.value;
    else
      values[m.metric as HistoryMetric] = {
        value: m.value,
        accuracy: m.accuracy as PercentileAccuracy | null,
      };
  }
  return { values, load: k.load as unknown as LoadFacts[], pooledChanges, formula };
}

export function runFactsService(deps: {
  runs: Pick<RunsRepository, 'find'>;
  facts: Pick<RunFactsRepository, 'store' | 'ofRuns' | 'metricNames' | 'withoutFacts'>;
  propagation: Pick<PropagationService, 'changes' | 'propagation'>;
  churn: Pick<ChurnService, 'runPropagation'>;
  lifecycle: Pick<LifecycleRepository, 'phases'>;
  metrics: Pick<MetricsRepository, 'listSeries' | 'seriesRows'>;
  results: Pick<ResultsService, 'list'>;
}) {
  const { runs, facts, propagation, churn, lifecycle, metrics, results } = deps;

  async function computeFacts(run: RunRow): Promise<RunFacts> {
    const startMs = run.startedAt.getTime();
    const values: RunFacts['values'] = {};
    let pooledChanges: number | null = null;
    const [first, second] = await propagation.changes(run.id);
    if (second) {
      // A churn run: every change's first applications pooled, never the first change alone.
      const all = await churn.runPropagation(run.id, {
        percentiles: PROPAGATION_HISTORY_PERCENTILES,
        withinMs: 1000,
        bins: 1,
        scale: 'linear',
      });
      Object.assign(values, pooledFacts(all.pooled));
      pooledChanges = all.changes.length;
    } else if (first) {
      const p = await propagation.propagation(run.id, first.id, {
        withinMs: 1000,
        bins: 1,
        scale: 'linear',
      });
      Object.assign(values, propagationFacts(p));
    }
    const phases = await lifecycle.phases(run.id);
    const join = phases
      .filter((p) => isJoinPhase(p.phase) && p.firsts.length > 0)
      .sort((a, b) => (a.firsts[0] as number) - (b.firsts[0] as number))[0];
    const joins = join ? joinFacts(join, run.topology, startMs) : null;
    if (joins) Object.assign(values, joins.values);
    const cpu = (await metrics.listSeries(run.id)).find((s) => isCpuSeries(s.name));
    if (cpu) {
      const toMs = run.finishedAt ? run.finishedAt.getTime() : Date.now();
      const rows = (await readSeriesRows(metrics, run.id, [cpu], startMs, toMs)).get(cpu.id);
      // A counter of CPU seconds (Istio's and Linkerd's process_cpu_seconds_total) in cores.
      const samples = isCpuSecondsCounter(cpu)
        ? cpuCoresRows(rows ?? [], startMs)
        : normalize(cpu.kind as SeriesKind, rows ?? [], startMs);
      Object.assign(values, cpuFacts(samples, steadyStart(phases, run.topology)?.atMs ?? null));
    }
    // Steps as GET /runs/{id}/results has them: a step of several generators by its merged row.
    const load = (await results.list(run.id)).filter((r) => r.generator === null).map(loadFacts);
    return { values, load, pooledChanges };
  }

  /** What the repository keeps of a run's computed facts. */
  const keptEntry = (run: RunRow, version: number, f: RunFacts): KeptFactsEntry => ({
    runId: run.id,
    version,
    facts: {
      load: f.load as unknown as Record<string, unknown>[],
      metrics: [
        ...Object.entries(f.values).map(([metric, v]) => ({
          metric,
          value: (v as Valued).value,
          accuracy: (v as Valued).accuracy as Record<string, unknown> | null,
        })),
        { metric: FORMULA, value: FACTS_FORMULA, accuracy: null },
        ...(f.pooledChanges === null
          ? []
          : [{ metric: POOLED_CHANGES, value: f.pooledChanges, accuracy: null }]),
      ],
    },
  });

  /** Computes a finished run's facts and keeps them, dated by the version read first. */
  async function computeAndKeep(run: RunRow, version: number): Promise<RunFacts> {
    const f = await computeFacts(run);
    await facts.store([keptEntry(run, version, f)], { alertsPending: true });
    return f;
  }

  /**
   * The runs' facts: kept ones read in one query (every metric, or only `metric`, with the
   * names of those kept in `names`); a run without current ones (running, finished before
   * they were kept, or written since) computed afresh and not kept: a read writes nothing
   * (a finish keeps them, and the background worker those of runs written since or older).
   */
  async function factsOfAll(
    rows: RunRow[],
    metric?: HistoryMetric,
  ): Promise<{ all: RunFacts[]; names: Set<string> }> {
    const kept = await facts.ofRuns(
      rows.map((r) => r.id),
      metric,
      META,
    );
    const out = new Array<RunFacts>(rows.length);
    const missing: number[] = [];
    const current: string[] = [];
    rows.forEach((r, i) => {
      const k = kept.get(r.id);
      const f = k ? factsFromKept(k) : null;
      if (
        r.status === 'finished' &&
        k &&
        f &&
        k.factsVersion === k.dataVersion &&
        f.formula === FACTS_FORMULA
      ) {
        out[i] = f;
        current.push(r.id);
      } else missing.push(i);
    });
    const names = new Set(metric === undefined ? [] : await facts.metricNames(current));
    // Computed a few at a time.
    let next = 0;
    const worker = async () => {
      while (next < missing.length) {
        const i = missing[next++] as number;
        out[i] = await computeFacts(rows[i] as RunRow);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, missing.length) }, worker));
    for (const f of out) for (const k of Object.keys(f.values)) names.add(k);
    return { all: out, names };
  }

  return {
    /**
     * Computes a finished run's facts and keeps them, dated by the run's data version read
     * first; returns that version.
     */
    async keep(run: RunRow): Promise<number> {
      const version = (await facts.ofRuns([run.id])).get(run.id)?.dataVersion ?? 0;
      await computeAndKeep(run, version);
      return version;
    },

    ofRuns: factsOfAll,

    /**
     * The background worker's part: keeps the facts of finished runs that have none (they
     * finished before facts were kept), up to `limit`, dated by the version read first; no
     * alert is raised on them (alerts are for runs finishing now). Returns how many it kept.
     */
    async keepMissing(options: { limit?: number; projectId?: string } = {}): Promise<number> {
      const ids = await facts.withoutFacts(options.limit ?? KEEP_BATCH, options.projectId);
      const toKeep: KeptFactsEntry[] = [];
      for (const id of ids) {
        const run = await runs.find(id);
        if (run?.status !== 'finished') continue;
        const version = (await facts.ofRuns([run.id])).get(run.id)?.dataVersion ?? 0;
        toKeep.push(keptEntry(run, version, await computeFacts(run)));
      }
      await facts.store(toKeep);
      return toKeep.length;
    },
  };
}
export type RunFactsService = ReturnType<typeof runFactsService>;
