// Reading a change's propagation from its kept summary (one per stage, raw or clock
// corrected): exact, without the observations. The corrected summaries are the clock
// correction's (clock-correction.service.ts); the gap between stages is stage-gap.service.ts.
import type {
  ChangeList,
  ClockBasis,
  CorrectedBrief,
  PercentileValue,
  Propagation,
  PropagationClock,
  PropagationQuery,
} from '@meshbench/schema';
import {
  COVERAGE_PERCENTS,
  DEFAULT_PERCENTILES,
  type HistogramRange,
  type HistogramRangeChoice,
  linearHistogramRange,
  logHistogramRange,
} from '@meshbench/schema';
import { defaultStage, stageList } from '../domain/change-stages.ts';
import { withClockError } from '../domain/clock-correction.ts';
import { coverage, coverageRanks } from '../domain/coverage.ts';
import { nearestRank } from '../domain/nearest-rank.ts';
import {
  blocksNeeded,
  computeSummary,
  planSummary,
  type SummaryPlan,
} from '../domain/propagation-stats.ts';
import { SortedLatencies } from '../domain/sorted-latencies.ts';
import { formatTimestampUs } from '../domain/timestamp-text.ts';
import { AppError, notFound } from '../errors.ts';
import { type PropagationRepository, toFloat64 } from '../repositories/propagation.repository.ts';
import type { ClockCorrectionService, SummaryRow } from './clock-correction.service.ts';
import { type RunLookup, runOf } from './run-lookup.ts';

export type PropagationRequest = Omit<PropagationQuery, 'clock' | 'range'> & {
  clock?: ClockBasis;
  range?: HistogramRangeChoice;
  fromMs?: number;
  toMs?: number;
};

export interface PropagationDeps {
  runs: RunLookup;
  propagation: Pick<
    PropagationRepository,
    'changesOf' | 'stagesOf' | 'changeWithSummary' | 'blocks'
  >;
  corrections: Pick<ClockCorrectionService, 'correctedRead' | 'correctionPending'>;
}

export function propagationService(deps: PropagationDeps) {
  return {
    changes: (runRef: string): Promise<ChangeList> => changesOfRun(deps, runRef),
    propagation: (runRef: string, changeId: string, q: PropagationRequest): Promise<Propagation> =>
      readPropagation(deps, runRef, changeId, q),
  };
}

/** A few ranks and one bound of a kept summary: the corrected figures in brief. */
async function brief(
  propagation: PropagationDeps['propagation'],
  runId: string,
  changeId: string,
  stage: string,
  summary: NonNullable<SummaryRow>,
  percentiles: readonly number[],
  withinMs: number,
  denominator: number | null,
): Promise<CorrectedBrief> {
  const n = summary.count;
  const firsts = toFloat64(summary.blockFirsts);
  const plan = {
    ranks: n > 0 ? percentiles.map((p) => nearestRank(p, n)) : [],
    bounds: n > 0 ? [{ x: withinMs * 1000, strict: false }] : [],
  };
  const sample = new SortedLatencies(
    n,
    summary.blockSize,
    firsts,
    await propagation.blocks(
      runId,
      changeId,
      blocksNeeded(plan, firsts, summary.blockSize),
      'corrected',
      stage,
    ),
  );
  const withinCount = n > 0 ? sample.countBelow(withinMs * 1000, false) : 0;
  const d = denominator ?? n;
  return {
    percentiles: withClockError(
      n > 0 ? percentiles.map((p) => ({ p, ms: sample.at(nearestRank(p, n)) / 1000 })) : [],
      summary.clockMaxErrorUs ?? 0,
    ),
    withinCount,
    withinFraction: d > 0 ? withinCount / d : null,
    beforeChange: summary.beforeChange,
    minMs: summary.minUs === null ? null : summary.minUs / 1000,
    maxMs: summary.maxUs === null ? null : summary.maxUs / 1000,
  };
}

/** A run's changes, each with its counts and stages. */
async function changesOfRun(deps: PropagationDeps, runRef: string): Promise<ChangeList> {
  const { propagation } = deps;
  const run = await runOf(deps.runs, runRef);
  const rows = await propagation.changesOf(run.id);
  const stagesByChange = new Map<
    string,
    { stage: string; count: number; observations: number }[]
  >();
  for (const s of await propagation.stagesOf(run.id)) {
    const list = stagesByChange.get(s.changeId) ?? [];
    list.push(s);
    stagesByChange.set(s.changeId, list);
  }
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    target: r.target,
    action: r.action,
    at: formatTimestampUs(r.atUs),
    expected: r.expected,
    count: r.count ?? 0,
    repeats: r.repeats ?? 0,
    beforeChange: r.beforeChange ?? 0,
    stages: stageList(stagesByChange.get(r.id) ?? []),
  }));
}

/** A change's propagation from its kept summary (raw or clock corrected). */
async function readPropagation(
  deps: PropagationDeps,
  runRef: string,
  changeId: string,
  q: PropagationRequest,
): Promise<Propagation> {
  const { propagation, corrections } = deps;
  const correctedState = corrections.correctedRead;
  const correctionPending = corrections.correctionPending;
  const run = await runOf(deps.runs, runRef);
  const basis = q.clock ?? 'raw';
  const stages = stageList(await propagation.stagesOf(run.id, changeId));
  const stage = q.stage ?? defaultStage(stages);
  const rawRow = await propagation.changeWithSummary(run.id, changeId, 'raw', stage);
  if (!rawRow) throw notFound(`change "${changeId}" in run "${runRef}"`);
  const state = await correctedState(run.id, changeId, stage);
  const corrected = state.summary;
  if (basis === 'corrected' && state.pending) throw correctionPending(runRef, changeId);
  if (basis === 'corrected' && !corrected) {
    throw new AppError(
      409,
      'no_clock_data',
      `run "${runRef}" has no clock reports, so there are no corrected latencies; post "clock" events for its nodes, or ask for clock=raw`,
      { field: 'clock' },
    );
  }
  const { change } = rawRow;
  const summary = basis === 'corrected' ? corrected : rawRow.summary;
  const n = summary?.count ?? 0;
  const expected = change.expected;
  const input = {
    n,
    minUs: summary?.minUs ?? null,
    maxUs: summary?.maxUs ?? null,
    denominator: expected ?? n,
  };
  const firsts = summary ? toFloat64(summary.blockFirsts) : new Float64Array(0);
  const blockSize = summary?.blockSize ?? 1;
  const load = async (plan: SummaryPlan) =>
    new SortedLatencies(
      n,
      blockSize,
      firsts,
      await propagation.blocks(
        run.id,
        changeId,
        blocksNeeded(plan, firsts, blockSize),
        basis,
        stage,
      ),
    );
  // Log bins over skewed latencies start at the smallest positive one: two small lookups.
  let logStartUs: number | undefined;
  if (q.scale === 'log' && q.fromMs === undefined && input.minUs !== null && input.minUs <= 0) {
    const atOrBelowZero = (await load({ ranks: [], bounds: [{ x: 0, strict: false }] })).countBelow(
      0,
      false,
    );
    if (atOrBelowZero < n)
      logStartUs = (await load({ ranks: [atOrBelowZero + 1], bounds: [] })).at(atOrBelowZero + 1);
  }
  const percentiles = q.percentiles ?? [...DEFAULT_PERCENTILES];
  // ?range=auto: the range the page draws, from this answer's own percentiles.
  const asked = q.fromMs !== undefined || q.toMs !== undefined;
  let range: HistogramRange | null = {};
  if (!asked && q.range === 'auto') {
    range = await autoRange(q.scale, percentiles, q.withinMs, input, logStartUs, load);
  }
  const req = {
    ...q,
    ...range,
    percentiles,
    logStartUs: range?.fromMs === undefined ? logStartUs : undefined,
  };
  const plan = planSummary(req, input, firsts, blockSize);
  // Coverage: of the expected proxies, or of those seen when the change declares none.
  const base = input.denominator;
  plan.ranks.push(...coverageRanks(COVERAGE_PERCENTS, base, n));
  const sample = await load(plan);
  const stats = computeSummary(req, input, sample);
  if (range === null) Object.assign(stats, { histogram: [], underflow: 0, overflow: 0 });
  const clock = await clockOf(deps, {
    runId: run.id,
    changeId,
    stage,
    basis,
    state,
    stats,
    input,
    percentiles: req.percentiles,
    withinMs: q.withinMs,
    expected,
  });
  if (basis === 'corrected')
    stats.percentiles = withClockError(stats.percentiles, corrected?.clockMaxErrorUs ?? 0);
  return {
    change: {
      id: change.id,
      kind: change.kind,
      target: change.target,
      action: change.action,
      at: formatTimestampUs(change.atUs),
      expected,
    },
    count: n,
    observations: summary?.observations ?? 0,
    expected,
    missing: expected === null ? null : Math.max(0, expected - n),
    beforeChange: summary?.beforeChange ?? 0,
    repeats: summary?.repeats ?? 0,
    minMs: input.minUs === null ? null : input.minUs / 1000,
    maxMs: input.maxUs === null ? null : input.maxUs / 1000,
    meanMs: summary && n > 0 ? summary.sumUs / n / 1000 : null,
    percentiles: stats.percentiles,
    withinMs: q.withinMs,
    withinCount: stats.withinCount,
    withinFraction: stats.withinFraction,
    scale: q.scale,
    histogramRange: asked ? 'asked' : q.range !== 'auto' ? 'data' : range ? 'auto' : 'none',
    histogram: stats.histogram,
    underflow: stats.underflow,
    overflow: stats.overflow,
    cdf: stats.cdf,
    computedAt: summary ? formatTimestampUs(summary.computedAtUs) : null,
    stage,
    stages,
    coverage: {
      of: expected === null ? 'observed' : 'expected',
      base,
      exact: true,
      points: coverage(COVERAGE_PERCENTS, base, n, (r) => sample.at(r)),
    },
    clock,
  };
}

/** What an answer says of node clocks: the corrected data there is, its figures in brief. */
async function clockOf(
  deps: PropagationDeps,
  a: {
    runId: string;
    changeId: string;
    stage: string;
    basis: ClockBasis;
    state: { hasReports: boolean; pending: boolean; summary: SummaryRow | undefined };
    stats: { percentiles: PercentileValue[]; withinCount: number; withinFraction: number | null };
    input: { minUs: number | null; maxUs: number | null };
    percentiles: readonly number[];
    withinMs: number;
    expected: number | null;
  },
): Promise<PropagationClock> {
  const { runId, changeId, stage, basis, state, stats, input, expected } = a;
  const corrected = state.summary;
  return {
    basis,
    available: state.hasReports,
    pending: state.pending,
    maxClockErrorMs: corrected ? (corrected.clockMaxErrorUs ?? 0) / 1000 : null,
    nodes: corrected ? (corrected.clockNodes ?? 0) + (corrected.uncorrectedNodes ?? 0) : null,
    correctedNodes: corrected ? (corrected.clockNodes ?? 0) : null,
    uncorrectedNodes: corrected ? (corrected.uncorrectedNodes ?? 0) : null,
    corrected: !corrected
      ? null
      : basis === 'corrected'
        ? {
            // The answer itself is corrected: its own figures, no second read.
            percentiles: withClockError(stats.percentiles, corrected.clockMaxErrorUs ?? 0),
            withinCount: stats.withinCount,
            withinFraction: stats.withinFraction,
            beforeChange: corrected.beforeChange,
            minMs: input.minUs === null ? null : input.minUs / 1000,
            maxMs: input.maxUs === null ? null : input.maxUs / 1000,
          }
        : await brief(
            deps.propagation,
            runId,
            changeId,
            stage,
            corrected,
            a.percentiles,
            a.withinMs,
            expected,
          ),
  };
}

export type PropagationService = ReturnType<typeof propagationService>;

/**
 * The histogram range `?range=auto` gives (linearHistogramRange / logHistogramRange, the
 * rules the page drew with): linear from the answer's percentiles, one lookup of their
 * ranks; log from the smallest positive latency (`logStartUs`). Null: nothing to draw.
 */
async function autoRange(
  scale: 'linear' | 'log',
  percentiles: readonly number[],
  withinMs: number,
  input: { n: number; minUs: number | null },
  logStartUs: number | undefined,
  load: (plan: SummaryPlan) => Promise<SortedLatencies>,
): Promise<HistogramRange | null> {
  const { n, minUs } = input;
  if (n === 0 || minUs === null) return null;
  if (scale === 'log') {
    return logHistogramRange(
      minUs / 1000,
      logStartUs === undefined ? undefined : logStartUs / 1000,
    );
  }
  const ranks = percentiles.map((p) => nearestRank(p, n));
  const sample = await load({ ranks, bounds: [] });
  return linearHistogramRange(
    percentiles.map((p, i) => ({ p, ms: sample.at(ranks[i] as number) / 1000 })),
    withinMs,
  );
}
