// The stages view of a data-plane run with interval data (the Istio 500k-RPS test): achieved
// rate, error rate and P50 / P99 over time, the "P99 < N x median" band, and each stage's
// summary row. Pure: a function of the API's answer, the limit N and the percentiles shown.
import type {
  LoadStage,
  StagePercentile as LoadStagePercentile,
  LoadStages,
} from '@meshbench/schema';
import { linearTicks, logTicks, niceCeil } from './axis.ts';
import {
  markKey,
  type NumberAxis,
  type PreparedLines,
  type SeriesRow,
  valueAxis,
} from './load-results.ts';
import { type MarkedPercentile, markMsPercentile } from './percentile-accuracy.ts';

export const MEDIAN = 50;
export const TAIL = 99;

export const STAGE_COLORS = {
  rps: '#2f5fd0',
  errors: '#b42318',
  p50: '#374151',
  p99: '#d97706',
  limit: '#b42318',
} as const;

const at = (ps: LoadStagePercentile[], p: number) => ps.find((x) => x.p === p) ?? null;

/** Seconds since the first interval: a linear axis from 0 to a round end. */
export function elapsedAxis(endS: number): NumberAxis {
  const top = endS > 0 ? niceCeil(endS) : 1;
  return { scale: 'linear', domain: [0, top], ticks: linearTicks(0, top, 6) };
}

/** 0 -> "0:00", 75 -> "1:15", 3725 -> "1:02:05". */
export function formatClock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export interface StageRow {
  key: string;
  mode: string;
  connections: number | null;
  targetRps: number | null;
  fromMs: number;
  toMs: number;
  achievedRps: number | null;
  requests: number;
  errors: number | null;
  errorRate: number | null;
  /** The percentiles shown, with their marks and bounds. */
  percentiles: { p: number; ms: number | null; marked: MarkedPercentile }[];
  /** P99 / P50; null without both. */
  ratio: number | null;
  /** The ratio is taken from an estimate. */
  ratioFromEstimate: boolean;
  /** P99 reached limit x P50. */
  over: boolean;
  generators: LoadStage['generators'];
  /** Generators that fell short or were saturated. */
  flagged: number;
}

export interface PreparedStages {
  rps: PreparedLines | null;
  errors: PreparedLines | null;
  latency: PreparedLines | null;
  /** Where each stage lies on the time axis, in seconds, for the charts' bands. */
  spans: { key: string; fromS: number; toS: number; label: string }[];
  table: StageRow[];
  /** Intervals whose P99 reached limit x P50. */
  overIntervals: number;
  /** Intervals with both P50 and P99. */
  bandIntervals: number;
  /** Each interval's P50 and P99 with their marks and bounds, by its x, for the tooltip. */
  marks: Map<number, { p50: MarkedPercentile; p99: MarkedPercentile }>;
}

function lines(
  rows: SeriesRow[],
  series: PreparedLines['series'],
  x: NumberAxis,
  values: number[],
): PreparedLines | null {
  if (!rows.some((r) => series.some((s) => typeof r[s.key] === 'number'))) return null;
  return { series, rows, x, y: valueAxis(values) };
}

/** A log axis when the rates span at least this ratio (Istio's 1k ... 500k: 500). */
const LOG_RATIO = 20;

/**
 * The achieved-rate axis. Istio's stages run 1k, 5k, 25k and 500k RPS: on a linear axis the
 * first three lie on the floor. When the positive rates span 20x or more, a log axis with a
 * tick at each stage's target rate (so each step reads against its own number), from half
 * the lowest to 1.5x the highest; else a linear axis from 0.
 */
export function stagesRpsAxis(values: number[], targets: (number | null)[]): NumberAxis {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.min(...positive);
  const hi = Math.max(...positive);
  if (positive.length === 0 || hi / lo < LOG_RATIO) return valueAxis(values);
  const steps = [...new Set(targets.filter((t): t is number => t !== null && t > 0))].sort(
    (a, b) => a - b,
  );
  const domain: [number, number] = [Math.min(lo, steps[0] ?? lo) / 2, Math.max(hi, ...steps) * 1.5];
  const ticks = steps.length >= 2 && steps.length <= 8 ? steps : logTicks(domain[0], domain[1]);
  return { scale: 'log', domain, ticks };
}

const stageName = (s: LoadStage) =>
  [
    s.mode,
    s.targetRps !== null ? `${s.targetRps.toLocaleString('en-US')} RPS` : null,
    s.connections !== null ? `${s.connections} conn` : null,
  ]
    .filter(Boolean)
    .join(' · ');

/** The achieved rate over time, on stagesRpsAxis (on a log axis, a zero rate is no point). */
function rpsLines(rows: SeriesRow[], x: NumberAxis, stages: LoadStage[]): PreparedLines | null {
  const values = rows.map((r) => r.rps as number);
  const y = stagesRpsAxis(
    values,
    stages.map((s) => s.targetRps),
  );
  const shown =
    y.scale === 'log'
      ? rows.map((r) => ({ ...r, rps: typeof r.rps === 'number' && r.rps > 0 ? r.rps : null }))
      : rows;
  const series = [{ key: 'rps', label: 'achieved RPS', color: STAGE_COLORS.rps, dash: '' }];
  const drawn = lines(shown, series, x, values);
  return drawn && { ...drawn, y };
}

export function prepareStages(
  raw: LoadStages,
  limit: number,
  shown: readonly number[] = [MEDIAN, TAIL],
): PreparedStages {
  // The API stamps intervals and stages in epoch ms: the axis counts from the first of them.
  const origin = Math.min(...raw.series.map((i) => i.startMs), ...raw.stages.map((s) => s.fromMs));
  const shift = Number.isFinite(origin) ? origin : 0;
  const data: LoadStages = {
    ...raw,
    series: raw.series.map((i) => ({ ...i, startMs: i.startMs - shift })),
    stages: raw.stages.map((s) => ({ ...s, fromMs: s.fromMs - shift, toMs: s.toMs - shift })),
  };
  const end = Math.max(
    0,
    ...data.series.map((i) => i.startMs + i.durationMs),
    ...data.stages.map((s) => s.toMs),
  );
  const x = elapsedAxis(end / 1000);
  const rpsRows: SeriesRow[] = [];
  const errorRows: SeriesRow[] = [];
  const latencyRows: SeriesRow[] = [];
  const latencyValues: number[] = [];
  let overIntervals = 0;
  let bandIntervals = 0;
  const marks = new Map<number, { p50: MarkedPercentile; p99: MarkedPercentile }>();
  const sorted = [...data.series].sort((a, b) => a.startMs - b.startMs);
  for (const i of sorted) {
    // Each interval at its middle, so a stage's points sit inside its band.
    const t = (i.startMs + i.durationMs / 2) / 1000;
    rpsRows.push({ x: t, rps: i.rps });
    errorRows.push({ x: t, errorRate: i.errorRate === null ? null : i.errorRate * 100 });
    const e50 = at(i.percentiles, MEDIAN);
    const e99 = at(i.percentiles, TAIL);
    const p50 = e50?.ms ?? null;
    const p99 = e99?.ms ?? null;
    marks.set(t, {
      p50: markMsPercentile(p50, e50?.accuracy),
      p99: markMsPercentile(p99, e99?.accuracy),
    });
    const band = p50 === null ? null : p50 * limit;
    const over = p50 !== null && p99 !== null && p50 > 0 && p99 >= p50 * limit;
    if (p50 !== null && p99 !== null) bandIntervals++;
    if (over) overIntervals++;
    latencyRows.push({ x: t, p50, p99, limit: band, [markKey('p99')]: over });
    for (const v of [p50, p99, band]) if (v !== null) latencyValues.push(v);
  }
  const table = data.stages.map((s, k): StageRow => {
    const p50 = at(s.percentiles, MEDIAN);
    const p99 = at(s.percentiles, TAIL);
    const m50 = markMsPercentile(p50?.ms, p50?.accuracy);
    const m99 = markMsPercentile(p99?.ms, p99?.accuracy);
    const ratio = p50 && p99 && p50.ms > 0 ? p99.ms / p50.ms : null;
    return {
      key: `${k}`,
      mode: s.mode,
      connections: s.connections,
      targetRps: s.targetRps,
      fromMs: s.fromMs,
      toMs: s.toMs,
      achievedRps: s.achievedRps,
      requests: s.requests,
      errors: s.errors,
      errorRate: s.errorRate,
      percentiles: shown.map((p) => {
        const v = at(s.percentiles, p);
        return { p, ms: v?.ms ?? null, marked: markMsPercentile(v?.ms, v?.accuracy) };
      }),
      ratio,
      ratioFromEstimate: m50.certainty === 'estimate' || m99.certainty === 'estimate',
      over: ratio !== null && ratio >= limit,
      generators: s.generators,
      flagged: s.generators.filter((g) => g.shortfall || g.saturated).length,
    };
  });
  return {
    rps: rpsLines(rpsRows, x, data.stages),
    errors: lines(
      errorRows,
      [{ key: 'errorRate', label: 'error rate', color: STAGE_COLORS.errors, dash: '' }],
      x,
      errorRows.flatMap((r) => (typeof r.errorRate === 'number' ? [r.errorRate] : [])),
    ),
    latency: lines(
      latencyRows,
      [
        { key: 'p50', label: `P${MEDIAN}`, color: STAGE_COLORS.p50, dash: '' },
        { key: 'p99', label: `P${TAIL}`, color: STAGE_COLORS.p99, dash: '' },
        {
          key: 'limit',
          label: `${limit} × P${MEDIAN} (limit)`,
          color: STAGE_COLORS.limit,
          dash: '5 4',
        },
      ],
      x,
      latencyValues,
    ),
    spans: data.stages.map((s, k) => ({
      key: `${k}`,
      fromS: s.fromMs / 1000,
      toS: s.toMs / 1000,
      label: stageName(s),
    })),
    table,
    overIntervals,
    bandIntervals,
    marks,
  };
}
