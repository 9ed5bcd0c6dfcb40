// Decoded interval results: what an interval format (an HdrHistogram log, k6's NDJSON stream)
// hands the results service for each step of each generator, and the load result (the
// point's row) derived from the step's merged histogram.
import type { HdrValueUnit, LoadResult, ResultFormat } from '@meshbench/schema';
import { decodeHdr, encodeCounts, type HdrCounts } from '../../domain/hdr.ts';
import { HdrMerger } from '../../domain/load-steps.ts';
import { runWhole } from '../../domain/slices.ts';
import { formatTimestampUs } from '../timestamps.ts';
import { emptyResult } from './values.ts';

/** One interval of one generator's step. */
export interface DecodedInterval {
  /** Interval start, ms since the Unix epoch, and length, ms. */
  startMs: number;
  durationMs: number;
  count: number;
  /** Failed requests in the interval, when the source says. */
  errors: number | null;
  minMs: number | null;
  maxMs: number | null;
  /** The interval's latency histogram, HdrHistogram V2 compressed encoding, values in `hdrUnit`. */
  hdr: Uint8Array;
}

/** One generator's step (mode, connections, target rate) with its intervals in time order. */
export interface DecodedIntervalResult {
  mode: string;
  connections: number | null;
  /** The step's whole target rate (all generators). */
  targetRps: number | null;
  generator: string | null;
  /** The unit the histograms' values are in. */
  hdrUnit: HdrValueUnit;
  /** The generator's CPU use over the step (fraction of its cores), when reported. */
  generatorCpu: number | null;
  labels: Record<string, string>;
  intervals: DecodedInterval[];
  /**
   * What the source counted over the whole step, kept over the intervals' sums (k6 counts a
   * failure whose request has no duration sample; its errors by status code), and the step's
   * min, mean, max and standard deviation where the source knew them from every sample (k6):
   * the histogram's own are only within a bucket (its max is its bucket's top).
   */
  known?: Pick<LoadResult, 'errors' | 'errorsByCode'> &
    Partial<Pick<LoadResult, 'minMs' | 'meanMs' | 'maxMs' | 'stdDevMs'>> & {
      /**
       * The span the source measured, when it is finer than its intervals': k6's from its
       * first request's start to its last one's end (its intervals are whole epoch seconds,
       * so their span is up to a second longer at each end). Epoch us, and ms.
       */
      startedAtUs?: number;
      durationMs?: number;
    };
  /**
   * How far a recorded value may be from the measured one, ms, when the source measured
   * finer than the histogram's unit (k6's ms with decimals recorded as whole us: 0.0005).
   */
  roundingMs?: number;
}

export interface DecodedIntervalResults {
  format: ResultFormat;
  results: DecodedIntervalResult[];
  unmapped: string[];
  /** Where a stream ends inside a line, left out (k6's; see K6NdjsonDecoded). */
  truncated?: { line: number; byte: number };
}

/** A step's point as stored: its load result plus its generator and whole histogram. */
export interface IntervalResultRow {
  result: LoadResult;
  generator: string | null;
  hdr: Uint8Array;
  intervals: DecodedInterval[];
}

/** Percentiles every interval point is stored with. */
export const STORED_PERCENTILES = [50, 75, 90, 95, 99, 99.9, 99.99, 100];

/** Label keys an interval result's stored row carries (read back when merging). */
export const HDR_UNIT_LABEL = 'hdrUnit';
export const GENERATOR_CPU_LABEL = 'generatorCpu';
export const HDR_ROUNDING_LABEL = 'hdrRoundingMs';

/** The step's row: its intervals' histograms added, and what they say. */
export function intervalResultRow(r: DecodedIntervalResult): IntervalResultRow {
  return runWhole(intervalResultRowSteps(r));
}

/**
 * intervalResultRow one step an interval: a log of 20,000 intervals decodes and adds 20,000
 * histograms, which runSliced runs with the event loop between slices.
 */
export function* intervalResultRowSteps(
  r: DecodedIntervalResult,
): Generator<void, IntervalResultRow> {
  const first = r.intervals[0];
  const last = r.intervals.at(-1);
  // The same merging the steps and slots read back (load-steps.ts), in the step's own unit.
  const merger = new HdrMerger(r.hdrUnit);
  for (const i of r.intervals) {
    merger.add(decodeHdr(i.hdr), r.hdrUnit, r.roundingMs ?? 0);
    yield;
  }
  const merged = merger.counts as HdrCounts;
  const stats = merger.stats();
  const fromMs = first?.startMs ?? 0;
  const toMs = last ? last.startMs + last.durationMs : fromMs;
  // The measured span when the source knows it; else the intervals' (exact for an interval
  // log, whose intervals are the measurement's own).
  const durationMs = r.known?.durationMs ?? toMs - fromMs;
  const startedAtUs = r.known?.startedAtUs ?? (first ? Math.round(first.startMs * 1000) : null);
  const errors = r.intervals.every((i) => i.errors === null)
    ? null
    : r.intervals.reduce((s, i) => s + (i.errors ?? 0), 0);
  const labels: Record<string, string> = { ...r.labels, [HDR_UNIT_LABEL]: r.hdrUnit };
  if (r.generatorCpu !== null) labels[GENERATOR_CPU_LABEL] = String(r.generatorCpu);
  if (r.roundingMs) labels[HDR_ROUNDING_LABEL] = String(r.roundingMs);
  const result: LoadResult = {
    ...emptyResult(),
    mode: r.mode,
    connections: r.connections,
    targetRps: r.targetRps,
    achievedRps: durationMs > 0 ? merged.total / (durationMs / 1000) : null,
    durationMs,
    requests: merged.total,
    errors: r.known ? r.known.errors : errors,
    errorsByCode: r.known?.errorsByCode ?? {},
    percentiles: merger.percentileValues(STORED_PERCENTILES),
    minMs: r.known?.minMs ?? stats.min,
    meanMs: r.known?.meanMs ?? stats.mean,
    maxMs: r.known?.maxMs ?? stats.max,
    stdDevMs: r.known?.stdDevMs ?? stats.stdDev,
    labels,
    startedAt: startedAtUs === null ? null : formatTimestampUs(startedAtUs),
  };
  return { result, generator: r.generator, hdr: encodeCounts(merged), intervals: r.intervals };
}
