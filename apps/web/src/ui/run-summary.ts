// The one sentence a run is read by, as the seeds write theirs: propagation "20,098 of 20,110
// proxies in 295.0 s; P50 72.5 ms, P99 212.9 s; 96.9 % within 1 s" (Consul), scale-up "3,000
// instances scheduled in 9 min 17 s (5.38/s mean, 14/s peak)" (Nomad C2M), data plane "+3 ms
// P50, +10 ms P99 over the baseline at 1,000 RPS and 16 connections" (Istio), stages "500,000
// RPS held, P99 under 5x median in 274 of 300 seconds" (Istio 500k). Built from the run's
// headline (GET /runs/headlines, frozen in reports) and nothing else, so the run page, the
// runs list, reports and compare say the same; an estimate carries its "~". Pure.
import type { PercentileValue, RunHeadline } from '@meshbench/schema';
import { formatDurationDelta } from '../charts/prepare/duration.ts';
import {
  formatCount,
  formatDuration,
  formatElapsed,
  formatMs,
  formatPercent,
  NO_VALUE,
} from '../charts/prepare/format.ts';
import { markDerived, markMsPercentile } from '../charts/prepare/percentile-accuracy.ts';

type Headline<K extends RunHeadline['kind']> = Extract<RunHeadline, { kind: K }>;

const sig3 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

/** A percentile with its mark: "72.5 ms", "~16.4 ms"; the dash for none. */
const pct = (v: PercentileValue | null | undefined) => markMsPercentile(v?.ms, v).text;

/** A threshold as people say it: "1 s", not "1,000.0 ms". */
export const withinText = (ms: number) =>
  ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : formatMs(ms);

/** A rate as the seeds write it: "1,000 RPS", "486,667 RPS". */
const rps = (n: number) => `${formatCount(n)} RPS`;

function propagation(h: Headline<'propagation'>): string {
  const what = h.summary === 'pooled' ? 'first applications' : 'proxies';
  const of =
    h.expected !== undefined && h.expected !== null
      ? `${formatCount(h.count)} of ${formatCount(h.expected)} ${what}`
      : `${formatCount(h.count)} ${what}`;
  const over = h.summary === 'pooled' ? ` over ${formatCount(h.changes)} changes` : '';
  const last = h.lastMs !== undefined && h.lastMs !== null ? ` in ${formatMs(h.lastMs)}` : '';
  const p50 = h.p50 !== undefined ? `P50 ${pct(h.p50)}, ` : '';
  const worst = h.worst ? `; worst change ${h.worst.changeId}: P99 ${formatMs(h.worst.p99Ms)}` : '';
  return `${of}${over}${last}; ${p50}P99 ${pct(h.p99)}; ${formatPercent(h.withinFraction)} within ${withinText(h.withinMs)}${worst}`;
}

/** The entities a phase counts, as the seeds name them. */
const noun = (phase: string) => (phase === 'joined' ? 'nodes' : 'instances');

function scaleUp(h: Headline<'scale-up'>): string {
  if (h.timeToAllMs === null)
    return `${formatCount(h.count)} of ${formatCount(h.total)} ${noun(h.phase)} ${h.phase}; not all arrived`;
  const rates = [
    h.meanPerS !== undefined && h.meanPerS !== null ? `${sig3.format(h.meanPerS)}/s mean` : null,
    h.peakPerS !== undefined && h.peakPerS !== null ? `${formatCount(h.peakPerS)}/s peak` : null,
  ].filter((r): r is string => r !== null);
  const tail = rates.length > 0 ? ` (${rates.join(', ')})` : '';
  return `${formatCount(h.total)} ${noun(h.phase)} ${h.phase} in ${formatElapsed(h.timeToAllMs)}${tail}`;
}

/** Where a step ran: "at 1,000 RPS and 16 connections". */
const at = (rate: number | null, connections: number | null) =>
  [
    rate !== null ? rps(rate) : null,
    connections !== null ? `${formatCount(connections)} connections` : null,
  ]
    .filter(Boolean)
    .join(' and ');

/** The added latency of one percentile, marked "~" when either side is an estimate. */
function added(step: PercentileValue | null, base: PercentileValue | null): string {
  if (!step || !base) return NO_VALUE;
  return markDerived(formatDurationDelta(step.ms - base.ms), !step.exact || !base.exact);
}

function dataPlane(h: Headline<'data-plane'>): string {
  const s = h.stages;
  if (s) {
    const target =
      s.targetRps === null
        ? 'no target rate'
        : s.held
          ? `${rps(s.targetRps)} held${
              s.achievedRps !== null && Math.round(s.achievedRps) < s.targetRps
                ? ` (${formatCount(s.achievedRps)} achieved)`
                : ''
            }`
          : `${rps(s.targetRps)} not held (${s.achievedRps === null ? NO_VALUE : formatCount(s.achievedRps)} achieved)`;
    const count = `${s.fromEstimates ? '~' : ''}${formatCount(s.under)} of ${formatCount(s.intervals)}`;
    const unit = s.intervalMs === 1000 ? 'seconds' : `intervals of ${formatDuration(s.intervalMs)}`;
    return `${target}, P99 under ${s.limit}x median in ${count} ${unit}`;
  }
  const b = h.overBaseline;
  if (b) {
    const config = b.config ? `, ${b.config}` : '';
    return `${added(b.p50, b.baselineP50)} P50, ${added(b.p99, b.baselineP99)} P99 over the baseline at ${at(b.rps, b.connections)} (${b.mode}${config})`;
  }
  const where = at(h.rps, h.connections);
  const config = h.config === null ? '' : ` (${h.config})`;
  const merged = h.generators === null ? '' : `, merged over ${h.generators} generators`;
  return `P99 ${pct(h.p99)}${where ? ` at ${where}` : ''}${config}${merged}`;
}

/** The run's summary sentence. */
export function runSummary(h: RunHeadline): string {
  switch (h.kind) {
    case 'propagation':
      return propagation(h);
    case 'scale-up':
      return scaleUp(h);
    case 'data-plane':
      return dataPlane(h);
  }
}
