// Whether runs can be compared: the facts the check reads (a run's topology, mesh version,
// labels and load points) gathered for the gate, the compare page and a report alike.
import {
  type Comparability,
  type ComparabilityPin,
  type ComparabilityWarning,
  DEFAULT_PERCENTILES,
  type StoredLoadResult,
} from '@meshbench/schema';
import { withRequestedPercentiles } from '../domain/bucket-percentiles.ts';
import { comparabilityOf, type RunFacts } from '../domain/comparability.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import type { ResultsService } from './results.service.ts';

/** A run as the compare page names it in a reason: its mesh and its id's first characters. */
export function whereRun(
  run: { id: string; mesh: { name: string; version: string | null } },
  baseline: boolean,
): string {
  const mesh = `${run.mesh.name}${run.mesh.version ? ` ${run.mesh.version}` : ''}`;
  return `in ${mesh} (run ${run.id.slice(0, 8)}${baseline ? ', the baseline' : ''})`;
}

/**
 * The facts of a run as the API shows it (a report's frozen runs included). A load point's
 * percentiles are those its file states, and the default ones (P50 ... P99.9) from its
 * histogram where it states none (as GET /runs/{id}/results?percentiles= computes them).
 */
export function factsOf(
  run: {
    id: string;
    mesh: { name: string; version: string | null };
    topology: { nodes?: number | undefined; instances?: number | undefined };
    labels: Record<string, string>;
  },
  loadResults: StoredLoadResult[],
  where: string,
): RunFacts {
  return {
    id: run.id,
    where,
    meshVersion: run.mesh.version,
    topology: run.topology,
    labels: run.labels,
    loadResults: loadResults.map((r) => ({
      ...r,
      percentiles: withRequestedPercentiles(r.percentiles, r.histogram, [...DEFAULT_PERCENTILES]),
    })),
  };
}

/** Runs in the order compared, the first the baseline. */
export function comparabilityOfRuns(
  runs: RunFacts[],
  same: readonly ComparabilityPin[] = [],
): Comparability {
  const warnings = comparabilityOf(runs, same);
  return { runs: runs.map((r) => r.id), comparable: warnings.length === 0, warnings };
}

export function comparabilityService(deps: {
  runs: RunsRepository;
  results: Pick<ResultsService, 'list'>;
}) {
  const { runs, results } = deps;

  const facts = async (run: RunRow, where: string): Promise<RunFacts> =>
    factsOf(
      { ...run, mesh: { name: run.meshName, version: run.meshVersion } },
      await results.list(run.id),
      where,
    );

  return {
    /**
     * Why a run cannot be held against its baseline runs, as a gate says it ("here", "in the
     * baseline"); each baseline run is checked against the run on its own.
     */
    async againstBaseline(
      run: RunRow,
      baselineRunIds: string[],
      same: readonly ComparabilityPin[],
    ): Promise<ComparabilityWarning[]> {
      const here = await facts(run, 'here');
      const out: ComparabilityWarning[] = [];
      const seen = new Set<string>();
      for (const id of baselineRunIds) {
        const base = await runs.find(id);
        if (!base) continue;
        const where =
          baselineRunIds.length === 1
            ? 'in the baseline'
            : `in baseline run ${base.id.slice(0, 8)}`;
        for (const w of comparabilityOf([await facts(base, where), here], same)) {
          // The run's own shortfalls are said once, not once per baseline run.
          if (w.runIds.length === 1 && w.runIds[0] === run.id && seen.has(w.kind)) continue;
          if (w.runIds.length === 1 && w.runIds[0] === run.id) seen.add(w.kind);
          out.push(w);
        }
      }
      return out;
    },
  };
}
export type ComparabilityService = ReturnType<typeof comparabilityService>;
