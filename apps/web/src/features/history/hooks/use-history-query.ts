// The history a page's URL asks for: its query, the metric shown, and the answer. Without a
// benchmark in the URL it writes in the benchmark with the most runs (and its largest
// scenario); the metric falls back to one the benchmark's runs have.
import type { HistoryMetric, RunFacets } from '@meshbench/schema';
import { useEffect, useState } from 'react';
import type { SetURLSearchParams } from 'react-router';
import { chosenMetric, defaultBenchmark } from '../../../charts/prepare/history.ts';
import { useHistory } from './use-history.ts';

const FIELDS = ['benchmark', 'scenario', 'branch', 'mesh', 'connections', 'targetRps'] as const;

export function useHistoryQuery(
  params: URLSearchParams,
  setParams: SetURLSearchParams,
  facets: RunFacets | undefined,
) {
  const field = (f: (typeof FIELDS)[number]) => params.get(f) || undefined;
  const number = (f: (typeof FIELDS)[number]) => {
    const v = Number(field(f));
    return field(f) !== undefined && Number.isFinite(v) ? v : undefined;
  };
  // The metrics the benchmark's runs have, from the last answer: a benchmark without
  // propagation opens on its first metric instead of an empty P99.
  const [offered, setOffered] = useState<{ benchmark: string; metrics: HistoryMetric[] } | null>(
    null,
  );
  const benchmark = field('benchmark');
  const metric = chosenMetric(
    params.get('metric'),
    offered && offered.benchmark === benchmark ? offered.metrics : null,
  );
  // Every scenario of the benchmark is read, and one shown: a history mixes none.
  const query = {
    metric,
    benchmark,
    branch: field('branch'),
    mesh: field('mesh'),
    connections: number('connections'),
    targetRps: number('targetRps'),
    limit: 500,
  };
  // No benchmark in the URL: the one with the most runs, and its largest scenario, written
  // into the URL in place, so the page opens on a history and a copied link shows it.
  const opening = benchmark === undefined ? defaultBenchmark(facets?.benchmarkRuns ?? []) : null;
  const openBenchmark = opening?.benchmark;
  const openScenario = opening?.scenario;
  useEffect(() => {
    if (openBenchmark === undefined || openScenario === undefined) return;
    setParams(
      (s) => {
        const next = new URLSearchParams(s);
        next.set('benchmark', openBenchmark);
        if (!next.get('scenario')) next.set('scenario', openScenario);
        return next;
      },
      { replace: true },
    );
  }, [openBenchmark, openScenario, setParams]);
  const history = useHistory(query);
  const answered = history.data && !history.isPlaceholderData ? history.data : undefined;
  useEffect(() => {
    if (answered && benchmark) setOffered({ benchmark, metrics: answered.metrics });
  }, [answered, benchmark]);
  return { query, metric, history };
}
