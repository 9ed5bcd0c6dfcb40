// The tail of a change: its slow first applications and never-converged proxies, by cause, and
// the attribute values that set them apart. On corrected latencies when the run's nodes report
// their clocks (a node whose clock runs behind otherwise hides its slowness), raw on request.
import {
  causeDescription,
  DEFAULT_ATTRIBUTION_PERCENTILE,
  DEFAULT_TAIL_THRESHOLD_MS,
  TAIL_FALLBACK_PERCENTILE,
  type Tail,
  type TailAttribution,
  type TailIncident,
} from '@meshbench/schema';
import {
  correctedCuts,
  type NodeClock,
  nodeClocks,
  rawCuts,
  type TailCuts,
} from '../domain/clock-correction.ts';
import { nearestRank } from '../domain/nearest-rank.ts';
import { blockOfRank, SortedLatencies } from '../domain/sorted-latencies.ts';
import { minTailCount, rankAttribution } from '../domain/tail-attribution.ts';
import {
  assignCauses,
  type TailIncident as Incident,
  tailBreakdown,
} from '../domain/tail-causes.ts';
import { AppError, notFound } from '../errors.ts';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import type { ClockRepository } from '../repositories/clock.repository.ts';
import { type PropagationRepository, toFloat64 } from '../repositories/propagation.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import type { TailRepository } from '../repositories/tail.repository.ts';
import type { ClockCorrectionService } from './clock-correction.service.ts';

type ClockBasis = 'raw' | 'corrected';

export interface TailAttributionRequest {
  thresholdMs?: number | undefined;
  thresholdP?: number | undefined;
  limit: number;
  clock?: ClockBasis | undefined;
}

export interface TailRequest {
  thresholdMs?: number | undefined;
  thresholdP?: number | undefined;
  limit: number;
  clock?: ClockBasis | undefined;
}

const incidentOut = (i: Incident): TailIncident => ({
  kind: i.kind,
  node: i.node,
  proxy: i.proxy,
  from: formatTimestampUs(i.fromUs),
  to: i.toUs === null ? null : formatTimestampUs(i.toUs),
});

export function tailService(deps: {
  runs: RunsRepository;
  propagation: PropagationRepository;
  tail: TailRepository;
  clocks: Pick<ClockRepository, 'clockState' | 'readings'>;
  corrected: Pick<ClockCorrectionService, 'correctedRead' | 'correctionPending'>;
}) {
  const { runs, propagation, tail, clocks, corrected } = deps;

  type Summary = NonNullable<
    Awaited<ReturnType<PropagationRepository['changeWithSummary']>>
  >['summary'];

  /** The latencies a tail is read on: raw, or corrected with each node's clock. */
  interface Basis {
    clock: ClockBasis;
    /** The change's kept summary of those latencies (ranks for a percentile cut). */
    summary: Summary;
    /** corrected: every node's clock, and the largest error of a corrected latency (us). */
    clocks: Map<string, NodeClock> | null;
    errorUs: number | null;
  }

  /** The change's nearest-rank Pxx from its kept summary: one block read, no scan. */
  async function percentileUs(
    runId: string,
    changeId: string,
    basis: Basis,
    p: number,
  ): Promise<number | null> {
    const { summary } = basis;
    const n = summary?.count ?? 0;
    if (!summary || n === 0) return null;
    const firsts = toFloat64(summary.blockFirsts);
    const rank = nearestRank(p, n);
    const blocks = await propagation.blocks(
      runId,
      changeId,
      [blockOfRank(rank, summary.blockSize)],
      basis.clock,
    );
    return new SortedLatencies(n, summary.blockSize, firsts, blocks).at(rank);
  }

  async function changeOf(runRef: string, changeId: string) {
    const run = await runs.find(runRef);
    if (!run) throw notFound(`run "${runRef}"`);
    const row = await propagation.changeWithSummary(run.id, changeId);
    if (!row) throw notFound(`change "${changeId}" in run "${runRef}"`);
    return { run, ...row };
  }

  /**
   * Corrected latencies when the run has clock reports (unless raw ones are asked for), else
   * raw; corrected ones asked of a run without reports are a 409, as for propagation.
   */
  async function basisOf(
    runRef: string,
    runId: string,
    changeId: string,
    raw: Summary,
    asked: ClockBasis | undefined,
  ): Promise<Basis> {
    const rawBasis: Basis = { clock: 'raw', summary: raw, clocks: null, errorUs: null };
    if (asked === 'raw') return rawBasis;
    const { hasReports } = await clocks.clockState(runId);
    if (!hasReports) {
      if (asked === 'corrected')
        throw new AppError(
          409,
          'no_clock_data',
          `run "${runRef}" has no clock reports, so there are no corrected latencies; post "clock" events for its nodes, or ask for clock=raw`,
          { field: 'clock' },
        );
      return rawBasis;
    }
    const [state, readings] = await Promise.all([
      corrected.correctedRead(runId, changeId),
      clocks.readings(runId),
    ]);
    // Not computed yet (a batch came after it): asked for, said so; by default, the raw cut,
    // which the answer's `clock` names.
    if (state.pending) {
      if (asked === 'corrected') throw corrected.correctionPending(runRef, changeId);
      return rawBasis;
    }
    const summary = state.summary;
    return {
      clock: 'corrected',
      summary: summary ?? null,
      clocks: nodeClocks(readings),
      errorUs: summary?.clockMaxErrorUs ?? 0,
    };
  }

  /** Where the tail starts on each node's clock, for a cut of thresholdUs. */
  const cutsOf = (basis: Basis, changeAtUs: number, thresholdUs: number): TailCuts =>
    basis.clocks
      ? correctedCuts(basis.clocks, changeAtUs, thresholdUs)
      : rawCuts(changeAtUs, thresholdUs);

  const clockOut = (basis: Basis) => ({
    clock: basis.clock,
    clockErrorMs: basis.errorUs === null ? null : basis.errorUs / 1000,
  });

  return {
    /**
     * The attribute values over-represented in the tail (the proxies slower than the cut:
     * thresholdMs, else the nearest-rank thresholdP, else P99), by lift.
     */
    async attribution(
      runRef: string,
      changeId: string,
      q: TailAttributionRequest,
    ): Promise<TailAttribution> {
      const { run, change, summary } = await changeOf(runRef, changeId);
      const basis = await basisOf(runRef, run.id, changeId, summary, q.clock);
      const thresholdP =
        q.thresholdMs === undefined ? (q.thresholdP ?? DEFAULT_ATTRIBUTION_PERCENTILE) : null;
      const thresholdUs =
        thresholdP !== null
          ? await percentileUs(run.id, changeId, basis, thresholdP)
          : (q.thresholdMs as number) * 1000;
      const { total, tailCount, counts } = await tail.attributeCounts(
        run.id,
        changeId,
        change.atUs,
        thresholdUs === null ? null : cutsOf(basis, change.atUs, thresholdUs),
        (summary?.repeats ?? 0) > 0,
      );
      return {
        ...clockOut(basis),
        thresholdMs: thresholdUs === null ? null : thresholdUs / 1000,
        thresholdP,
        tailCount,
        total,
        minTailCount: minTailCount(tailCount),
        values: rankAttribution(counts, tailCount, total, q.limit),
      };
    },

    async tail(runRef: string, changeId: string, q: TailRequest): Promise<Tail> {
      const { run, change, summary } = await changeOf(runRef, changeId);
      const basis = await basisOf(runRef, run.id, changeId, summary, q.clock);
      const applied = summary?.count ?? 0;
      const neverConverged = change.expected === null ? 0 : Math.max(0, change.expected - applied);

      // The cut: as asked; else the default threshold, unless the median is slower than it
      // (more than half the proxies would be "tail", and the causes would describe the body
      // of the distribution), then P95. With nearest rank, more than half are slower than T
      // exactly when P50 > T.
      const medianUs = await percentileUs(run.id, changeId, basis, 50);
      const defaultUs = DEFAULT_TAIL_THRESHOLD_MS * 1000;
      const asked = q.thresholdP !== undefined || q.thresholdMs !== undefined;
      const fallback = !asked && medianUs !== null && medianUs > defaultUs;
      const thresholdP = fallback ? TAIL_FALLBACK_PERCENTILE : (q.thresholdP ?? null);
      const thresholdUs =
        thresholdP !== null
          ? thresholdP === 50
            ? medianUs
            : await percentileUs(run.id, changeId, basis, thresholdP)
          : (q.thresholdMs ?? DEFAULT_TAIL_THRESHOLD_MS) * 1000;

      const stamped =
        thresholdUs === null
          ? []
          : await tail.slowFirstApplications(
              run.id,
              changeId,
              cutsOf(basis, change.atUs, thresholdUs),
            );
      // Corrected: each latency with its node's offset taken out, as the corrected summary has it.
      const slow = stamped.map((o) => {
        const clock = o.node === null ? undefined : basis.clocks?.get(o.node);
        return clock ? { ...o, latencyUs: clock.toReference(o.atUs).refUs - change.atUs } : o;
      });
      const incidents =
        slow.length === 0
          ? []
          : await tail.incidentsNear(run.id, {
              proxies: [...new Set(slow.map((o) => o.proxy))],
              nodes: [...new Set(slow.flatMap((o) => (o.node === null ? [] : [o.node])))],
              fromUs: change.atUs,
              toUs: slow.reduce((max, o) => Math.max(max, o.atUs), change.atUs),
            });
      const breakdown = tailBreakdown(
        assignCauses(slow, incidents, change.atUs),
        neverConverged,
        q.limit,
      );
      return {
        ...clockOut(basis),
        thresholdMs: thresholdUs === null ? null : thresholdUs / 1000,
        thresholdP,
        cut: thresholdP === null ? 'threshold' : 'percentile',
        cutRule: fallback
          ? 'fallback'
          : q.thresholdP !== undefined
            ? 'thresholdP'
            : q.thresholdMs !== undefined
              ? 'thresholdMs'
              : 'default',
        medianMs: medianUs === null ? null : medianUs / 1000,
        applied,
        tailCount: breakdown.tailCount,
        neverConverged: breakdown.neverConverged,
        causes: breakdown.causes.map(({ cause, ...rest }) => ({
          cause,
          ...causeDescription(cause),
          ...rest,
        })),
        slowest: breakdown.slowest.map((o) => ({
          proxy: o.proxy,
          node: o.node,
          ms: o.latencyUs / 1000,
          cause: o.cause,
          ...(o.incident ? { incident: incidentOut(o.incident) } : {}),
        })),
      };
    },
  };
}
export type TailService = ReturnType<typeof tailService>;
