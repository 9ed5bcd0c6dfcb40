// A change's tail prepared for the page: the thresholds offered, the bars by cause, and the
// drill-down's incident windows as offsets from the change.
import {
  DEFAULT_TAIL_THRESHOLD_MS,
  NEVER_CONVERGED_CAUSE,
  TAIL_FALLBACK_PERCENTILE,
  TAIL_MAX_THRESHOLD_SHARE,
  type Tail,
  type TailIncident,
  UNEXPLAINED_CAUSE,
} from '@meshbench/schema';
import { linearTicks, niceCeil } from './axis.ts';
import { formatCount, formatDuration, formatPercent } from './format.ts';

export interface TailThreshold {
  id: string;
  /** What the control shows. */
  label: string;
  /** What the tail is: "slower than 1 s", "slower than P99". */
  description: string;
  /** Neither: the API's rule (1 s, or P95 when the median is slower than 1 s). */
  thresholdMs?: number;
  thresholdP?: number;
}

const defaultMs = formatDuration(DEFAULT_TAIL_THRESHOLD_MS);

export const TAIL_THRESHOLDS: TailThreshold[] = [
  {
    id: 'auto',
    label: 'Auto',
    description: `slower than ${defaultMs}, or than P${TAIL_FALLBACK_PERCENTILE} when most proxies are slower than ${defaultMs}`,
  },
  { id: '1s', label: '> 1 s', description: 'slower than 1 s', thresholdMs: 1000 },
  { id: 'p90', label: '> P90', description: 'slower than P90', thresholdP: 90 },
  { id: 'p95', label: '> P95', description: 'slower than P95', thresholdP: 95 },
  { id: 'p99', label: '> P99', description: 'slower than P99', thresholdP: 99 },
];
export const DEFAULT_TAIL_THRESHOLD = TAIL_THRESHOLDS[0] as TailThreshold;

/** The run page's `?tail=` (1s, p90, p95, p99); absent or unknown: auto. */
export function tailThresholdFromSearch(search: URLSearchParams): TailThreshold {
  const id = search.get('tail');
  return TAIL_THRESHOLDS.find((t) => t.id === id) ?? DEFAULT_TAIL_THRESHOLD;
}

/** The URL with this cut: auto is left out, so the plain run link stays plain. */
export function tailThresholdToSearch(
  search: URLSearchParams,
  threshold: TailThreshold,
): URLSearchParams {
  const next = new URLSearchParams(search);
  if (threshold.id === DEFAULT_TAIL_THRESHOLD.id) next.delete('tail');
  else next.set('tail', threshold.id);
  return next;
}

/**
 * Which tail the panel shows and why, in a sentence; a warning when the tail is most of the
 * proxies that applied the change, where "unexplained" counts the body of the distribution.
 */
export function tailCutNote(
  tail: Pick<Tail, 'cutRule' | 'thresholdMs' | 'thresholdP' | 'medianMs' | 'applied' | 'tailCount'>,
): { text: string; warning: boolean } {
  const at = tail.thresholdMs === null ? '' : ` (${formatDuration(tail.thresholdMs)})`;
  const median = tail.medianMs === null ? 'none' : formatDuration(tail.medianMs);
  if (tail.cutRule === 'fallback') {
    return {
      text: `The tail is the proxies slower than P${tail.thresholdP}${at}, not slower than ${defaultMs}: the median (${median}) is slower than ${defaultMs}, so ${defaultMs} would put more than half of the ${formatCount(tail.applied)} proxies that applied the change in the "tail". Pick "> 1 s" to see it anyway.`,
      warning: false,
    };
  }
  const share = tail.applied > 0 ? tail.tailCount / tail.applied : 0;
  if (share > TAIL_MAX_THRESHOLD_SHARE) {
    return {
      text: `This tail holds ${formatPercent(share)} of the ${formatCount(tail.applied)} proxies that applied the change (the median, ${median}, is slower than the cut): it is the body of the distribution, not its outliers, and "unexplained" mostly counts proxies that were merely typical. A percentile cut (Auto, > P95, > P99) shows the outliers.`,
      warning: true,
    };
  }
  return {
    text:
      tail.cutRule === 'default'
        ? `The tail is the proxies slower than ${defaultMs} (Auto: P${TAIL_FALLBACK_PERCENTILE} instead when the median is slower than ${defaultMs}; it is ${median}).`
        : `The tail is the proxies ${tail.thresholdP !== null ? `slower than P${tail.thresholdP}${at}` : `slower than ${formatDuration(tail.thresholdMs ?? 0)}`}, as picked; the median is ${median}.`,
    warning: false,
  };
}

/** The incident kinds the probes send most, each its own colour; others share the palette. */
const CAUSE_COLORS: Record<string, string> = {
  'reconnect-backoff': '#466bb0',
  reconnect: '#7aa0e0',
  'retry-backoff': '#d97706',
  'tcp-retransmits': '#0e8f77',
  'packet-loss': '#7c3aed',
  'agent-restart': '#be185d',
  'leader-election': '#65a30d',
  [UNEXPLAINED_CAUSE]: '#9ca3af',
  [NEVER_CONVERGED_CAUSE]: '#b42318',
};
const PALETTE = ['#0891b2', '#b45309', '#9333ea', '#0f766e', '#c2410c', '#4d7c0f', '#1d4ed8'];

/** A cause's colour: fixed for the common kinds, else picked by the name (stable across runs). */
export function causeColor(cause: string): string {
  const known = CAUSE_COLORS[cause];
  if (known) return known;
  let h = 0;
  for (let i = 0; i < cause.length; i++) h = (h * 31 + cause.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length] as string;
}

export interface CauseBar {
  cause: string;
  count: number;
  share: number;
  color: string;
  /** "269 · 34.9 %": written at the end of the bar. */
  label: string;
  kind: 'cause' | 'unexplained' | 'never-converged';
}

export interface PreparedTailCauses {
  bars: CauseBar[];
  countDomain: [number, number];
  countTicks: number[];
  /** Tail proxies plus the ones that never applied the change. */
  total: number;
}

/** The causes as bars, largest first as the API orders them; never-converged is one of them. */
export function prepareTailCauses(
  tail: Pick<Tail, 'tailCount' | 'neverConverged'> & {
    causes: Pick<Tail['causes'][number], 'cause' | 'count' | 'share'>[];
  },
): PreparedTailCauses | null {
  if (tail.causes.length === 0) return null;
  const bars = tail.causes.map((c) => ({
    cause: c.cause,
    count: c.count,
    share: c.share,
    color: causeColor(c.cause),
    label: `${formatCount(c.count)} · ${formatPercent(c.share)}`,
    kind:
      c.cause === NEVER_CONVERGED_CAUSE
        ? ('never-converged' as const)
        : c.cause === UNEXPLAINED_CAUSE
          ? ('unexplained' as const)
          : ('cause' as const),
  }));
  const top = Math.max(1, niceCeil(Math.max(...bars.map((b) => b.count))));
  return {
    bars,
    countDomain: [0, top],
    countTicks: linearTicks(0, top, 4),
    total: tail.tailCount + tail.neverConverged,
  };
}

/** An offset from the change: "+34.6 ms", "+129 s", "−2 ms" (a clock behind). */
export function formatOffset(ms: number): string {
  return `${ms < 0 ? '−' : '+'}${formatDuration(Math.abs(ms))}`;
}

/**
 * Where an incident sat relative to the change, for the drill-down: "+34.6 ms – +129 s",
 * "+2 s – still open"; null when a time cannot be read.
 */
export function incidentWindow(
  incident: Pick<TailIncident, 'from' | 'to'>,
  changeAt: string,
): string | null {
  const t0 = Date.parse(changeAt);
  const from = Date.parse(incident.from);
  if (Number.isNaN(t0) || Number.isNaN(from)) return null;
  const to = incident.to === null ? null : Date.parse(incident.to);
  if (to !== null && Number.isNaN(to)) return null;
  return `${formatOffset(from - t0)} – ${to === null ? 'still open' : formatOffset(to - t0)}`;
}

/**
 * Which latencies a tail was cut and counted on: "latencies corrected for node clocks (±1.0
 * ms)" or "raw latencies, as the nodes stamped them"; '' for a tail frozen before it said.
 */
export function tailClockNote(t: { clock?: 'raw' | 'corrected'; clockErrorMs?: number | null }) {
  if (t.clock === 'corrected')
    return `latencies corrected for node clocks${t.clockErrorMs ? ` (±${formatDuration(t.clockErrorMs)})` : ''}`;
  if (t.clock === 'raw') return 'raw latencies, as the nodes stamped them';
  return '';
}

/** The tail in one sentence: what it is and how big. */
export function tailSummary(
  tail: Pick<Tail, 'thresholdMs' | 'thresholdP' | 'tailCount' | 'neverConverged'>,
  expected: number | null,
): string {
  const threshold =
    tail.thresholdP !== null
      ? `slower than P${tail.thresholdP}${tail.thresholdMs !== null ? ` (${formatDuration(tail.thresholdMs)})` : ''}`
      : `slower than ${formatDuration(tail.thresholdMs ?? 0)}`;
  const parts = [
    `${formatCount(tail.tailCount)} ${tail.tailCount === 1 ? 'proxy' : 'proxies'} ${threshold}`,
  ];
  if (tail.neverConverged > 0) parts.push(`${formatCount(tail.neverConverged)} never converged`);
  const total = tail.tailCount + tail.neverConverged;
  const of =
    expected !== null && expected > 0
      ? ` — ${formatPercent(total / expected)} of ${formatCount(expected)} expected`
      : '';
  return `${parts.join(', ')}${of}`;
}
