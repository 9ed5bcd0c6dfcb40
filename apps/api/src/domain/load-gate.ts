// A data-plane gate rule (load.p99>+10%, load.rps<-5%, load.errors>+1pp) held at every load
// step the run and its baseline share. Where both steps hold an HdrHistogram, a latency rule
// also asks whether the runs show the change: the exact bootstrap interval of the percentile
// difference, resampled from the bucket counts (quantile-bootstrap.ts), must exclude zero, the
// difference must exceed the rule's minimum and the noise floor (gate-significance.ts) and the
// two percentiles' HdrHistogram buckets must not overlap. Elsewhere the fixed rule decides
// alone, and each step says so. The rule's verdict is its worst step's.
import {
  breaks,
  type LoadRule,
  loadBound,
  loadHigherIsBetter,
  loadPercentileOf,
} from '@meshbench/gates';
import type { GateStep, PercentileValue } from '@meshbench/schema';
import { judgeDifference, ms } from './gate-significance.ts';
import { bucketBounds, decodeHdr, type HdrCounts } from './hdr.ts';
import { HdrMerger, roundingOf, type StepKey, stepKey, UNIT_PER_MS, unitOf } from './load-steps.ts';
import { type CountedSample, countedPercentileDifference } from './quantile-bootstrap.ts';

/** One side's load step as the gate reads it. */
export interface LoadStepSide extends StepKey {
  achievedRps: number | null;
  requests: number | null;
  errors: number | null;
  /** ms; an HdrHistogram's carry the bucket's lower and upper value. */
  percentiles: PercentileValue[];
  /** The step's merged HdrHistogram, each bucket read at its highest value in ms. */
  histogram: CountedSample | null;
  /** The file's format (why a step has no histogram: fortio's buckets, a summary...). */
  format: string;
}

/** An HdrHistogram's buckets as values (each bucket's highest value, ms) and counts. */
export function countedOf(h: HdrCounts, perMs: number): CountedSample {
  const values: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < h.counts.length; i++) {
    const c = h.counts[i] as number;
    if (c <= 0) continue;
    values.push(bucketBounds(h, i).high / perMs);
    counts.push(c);
  }
  return { values, counts };
}

/**
 * Each step's histogram, from the stored rows that hold one: a row of its own (no generator)
 * alone, a step's per-generator rows added together (as GET /runs/{id}/results merges them).
 */
export function stepHistograms(
  rows: (StepKey & { id: number; generator: string | null; labels: Record<string, string> })[],
  hdrOf: Map<number, Uint8Array>,
): { whole: Map<number, CountedSample>; merged: Map<string, CountedSample> } {
  const whole = new Map<number, CountedSample>();
  const groups = new Map<string, typeof rows>();
  for (const r of rows) {
    if (!hdrOf.has(r.id)) continue;
    if (r.generator === null) {
      const m = new HdrMerger(unitOf(r.labels));
      m.add(decodeHdr(hdrOf.get(r.id) as Uint8Array), unitOf(r.labels));
      whole.set(r.id, countedOf(m.counts as HdrCounts, UNIT_PER_MS[m.unit]));
    } else groups.set(stepKey(r), [...(groups.get(stepKey(r)) ?? []), r]);
  }
  const merged = new Map<string, CountedSample>();
  for (const [key, group] of groups) {
    // The finest unit of the group, as mergeSteps picks it.
    const unit = group
      .map((r) => unitOf(r.labels))
      .reduce((a, b) => (UNIT_PER_MS[b] > UNIT_PER_MS[a] ? b : a));
    const m = new HdrMerger(unit);
    for (const r of group)
      m.add(decodeHdr(hdrOf.get(r.id) as Uint8Array), unitOf(r.labels), roundingOf(r.labels));
    merged.set(key, countedOf(m.counts as HdrCounts, UNIT_PER_MS[unit]));
  }
  return { whole, merged };
}

const num = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** A step as a reason names it: "both, 64 connections, 1,000 RPS target" (", config x"). */
export function stepName(s: StepKey): string {
  const parts = [s.mode];
  if (s.connections !== null) parts.push(`${num(s.connections)} connections`);
  if (s.targetRps !== null) parts.push(`${num(s.targetRps)} RPS target`);
  if (s.config) parts.push(`config ${s.config}`);
  return parts.join(', ');
}

const keyOf = stepKey;

/** The rule's number at a step: a percentile (ms), the achieved rate, or errors in %. */
export function loadValue(rule: Pick<LoadRule, 'metric'>, s: LoadStepSide): number | null {
  const p = loadPercentileOf(rule.metric);
  if (p !== null) return s.percentiles.find((q) => q.p === p)?.ms ?? null;
  if (rule.metric === 'load.rps') return s.achievedRps;
  if (s.errors === null || s.requests === null || s.requests <= 0) return null;
  return (s.errors / s.requests) * 100;
}

const ruleUnit = (rule: LoadRule) =>
  loadPercentileOf(rule.metric) !== null ? ' ms' : rule.metric === 'load.errors' ? ' %' : ' RPS';

export interface StepInput {
  rule: LoadRule;
  step: StepKey;
  current: LoadStepSide | null;
  baseline: LoadStepSide | null;
  /** Why the two steps cannot be compared (rate shortfall, saturation, exactness...). */
  notComparable?: string | undefined;
  noiseFloorMs: number | null;
  level?: number;
}

/** Why a step is not significance-tested, when it is not. */
function untested(input: StepInput): string | null {
  const { rule, current, baseline } = input;
  const p = loadPercentileOf(rule.metric);
  if (p === null) return 'a rate, not a percentile of observations';
  if (!rule.relative) return 'an absolute bound, no baseline';
  if (rule.op === '<' || rule.op === '<=') return 'a rule on a fall in latency';
  const none = [
    current?.histogram ? null : `here (${current?.format ?? 'no data'})`,
    baseline?.histogram ? null : `in the baseline (${baseline?.format ?? 'no data'})`,
  ].filter((x): x is string => x !== null);
  return none.length > 0 ? `no HdrHistogram ${none.join(' or ')}` : null;
}

export function judgeLoadStep(input: StepInput): GateStep {
  const { rule, step, current, baseline, noiseFloorMs } = input;
  const at = {
    mode: step.mode,
    connections: step.connections,
    targetRps: step.targetRps,
    config: step.config ?? null,
  };
  const cur = current ? loadValue(rule, current) : null;
  const base = baseline ? loadValue(rule, baseline) : null;
  const bound = loadBound(rule, base);
  const out = (verdict: GateStep['verdict'], failed: boolean, reason: string, more = {}) => ({
    ...at,
    verdict,
    failed,
    reason,
    current: cur,
    baselineValue: base,
    bound,
    tested: false,
    ...more,
  });
  if (!current) return out('not-comparable', false, 'this step is only in the baseline');
  if (rule.relative && !baseline)
    return out('not-comparable', false, 'this step is not in the baseline');
  if (input.notComparable) return out('not-comparable', false, input.notComparable);
  if (cur === null) return out('not-comparable', false, `no ${rule.metric} at this step here`);
  if (bound === null) return out('not-comparable', false, `no ${rule.metric} in the baseline`);
  const unit = ruleUnit(rule);
  const fixed = breaks(rule, cur, bound);
  const fixedText = `${num(cur)}${unit} ${fixed ? rule.op : `not ${rule.op}`} ${num(bound)}${unit}`;
  const why = untested(input);
  if (why !== null) {
    // The fixed rule alone; past its mirror image (the same margin the good way) is improved.
    const mirror =
      rule.relative && base !== null ? loadBound({ ...rule, value: -rule.value }, base) : null;
    const better = loadHigherIsBetter(rule.metric);
    const improved =
      !fixed &&
      mirror !== null &&
      base !== null &&
      (better ? cur > mirror : cur < mirror) &&
      mirror !== base;
    return out(
      fixed ? 'regressed' : improved ? 'improved' : 'no-significant-change',
      fixed,
      `${fixedText}; not significance-tested: ${why}`,
    );
  }
  // Both steps hold histograms: the runs must show the change too.
  const p = loadPercentileOf(rule.metric) as number;
  const d = countedPercentileDifference(
    (current as LoadStepSide).histogram as CountedSample,
    (baseline as LoadStepSide).histogram as CountedSample,
    p,
    input.level ?? 0.95,
  );
  if (!d) return out('not-comparable', false, 'an empty HdrHistogram');
  const significance = judgeDifference(d, Math.abs(rule.value * (base as number)), noiseFloorMs);
  const tested = { tested: true, significance };
  if (significance.verdict === 'regressed' || significance.verdict === 'improved') {
    // HdrHistogram cannot tell values in one bucket apart: the buckets must not overlap.
    const qc = current.percentiles.find((q) => q.p === p);
    const qb = (baseline as LoadStepSide).percentiles.find((q) => q.p === p);
    const overlap =
      qc?.lower != null &&
      qc.upper != null &&
      qb?.lower != null &&
      qb.upper != null &&
      qc.lower <= qb.upper &&
      qb.lower <= qc.upper;
    if (overlap)
      return out(
        'no-significant-change',
        false,
        `${ms(d.delta)} is within the HdrHistogram buckets of the two P${p} (${ms(qc.lower as number)} to ${ms(qc.upper as number)} here, ${ms(qb.lower as number)} to ${ms(qb.upper as number)} in the baseline)`,
        tested,
      );
  }
  if (significance.verdict === 'regressed' && !fixed)
    return out('no-significant-change', false, `${fixedText} (${significance.reason})`, tested);
  return out(
    significance.verdict,
    significance.verdict === 'regressed',
    significance.reason,
    tested,
  );
}

/** Worst first: a regression, then steps that could not be compared, then the rest. */
const RANK: Record<GateStep['verdict'], number> = {
  regressed: 3,
  'not-comparable': 2,
  'no-significant-change': 1,
  improved: 0,
};

export interface LoadRuleVerdict {
  verdict: GateStep['verdict'];
  failed: boolean;
  reason: string;
  current: number | null;
  baselineValue: number | null;
  bound: number | null;
  steps: GateStep[];
}

/**
 * The rule at every step of the run (and of the baseline, for a relative rule): steps in the
 * run's order, then those only the baseline has. Fails when a step regressed, or when there is
 * nothing to hold the rule to.
 */
export function evaluateLoadRule(input: {
  rule: LoadRule;
  current: LoadStepSide[];
  baseline: LoadStepSide[] | null;
  notComparable: (current: LoadStepSide, baseline: LoadStepSide | null) => string | undefined;
  noiseFloorMs: (step: StepKey) => number | null;
  level?: number;
}): LoadRuleVerdict {
  const { rule, current, baseline } = input;
  const none = (reason: string): LoadRuleVerdict => ({
    verdict: 'not-comparable',
    failed: true,
    reason,
    current: null,
    baselineValue: null,
    bound: null,
    steps: [],
  });
  if (current.length === 0) return none('no load steps in this run');
  if (rule.relative && (baseline === null || baseline.length === 0))
    return none('no baseline with load steps to compare with');
  const base = new Map((baseline ?? []).map((s) => [keyOf(s), s]));
  const steps: GateStep[] = [];
  const seen = new Set<string>();
  for (const c of current) {
    const key = keyOf(c);
    if (seen.has(key)) continue;
    seen.add(key);
    const b = rule.relative ? (base.get(key) ?? null) : null;
    steps.push(
      judgeLoadStep({
        rule,
        step: c,
        current: c,
        baseline: b,
        notComparable: !rule.relative || b ? input.notComparable(c, b) : undefined,
        noiseFloorMs: input.noiseFloorMs(c),
        ...(input.level !== undefined ? { level: input.level } : {}),
      }),
    );
  }
  if (rule.relative)
    for (const [key, b] of base) {
      if (seen.has(key)) continue;
      seen.add(key);
      steps.push(judgeLoadStep({ rule, step: b, current: null, baseline: b, noiseFloorMs: null }));
    }
  const worst = steps.reduce((w, s) => (RANK[s.verdict] > RANK[w.verdict] ? s : w));
  const count = steps.filter((s) => s.verdict === worst.verdict).length;
  const words = {
    regressed: 'regressed',
    improved: 'improved',
    'no-significant-change': 'no significant change',
    'not-comparable': 'not comparable',
  }[worst.verdict];
  return {
    verdict: worst.verdict,
    failed: steps.some((s) => s.failed),
    reason: `${words} at ${count} of ${steps.length} step${steps.length === 1 ? '' : 's'}; at ${stepName(worst)}: ${worst.reason}`,
    current: worst.current,
    baselineValue: worst.baselineValue,
    bound: worst.bound,
    steps,
  };
}
