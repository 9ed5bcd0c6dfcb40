// Gate rules: "p99>+10%" (relative to the baseline), "within1s<95%" (absolute share),
// "p99>1500ms" (absolute latency). A rule names when the build fails. A rule may pin what
// the baseline must share with the run: "p99>+10% same:mesh.version" holds a run against a
// baseline of another mesh version as not comparable instead of testing it.
import {
  type ComparabilityPin,
  comparabilityPin,
  formatDurationMs,
  LOAD_METRICS,
  type LoadMetric,
  METRICS,
  type Metric,
} from '@meshbench/schema';

/** Latencies are lower-is-better; the share within 1 s is higher-is-better. */
export const higherIsBetter = (m: Metric) => m === 'within1s';

export interface Rule {
  text: string;
  metric: Metric;
  op: '>' | '<' | '>=' | '<=';
  /** Relative: fraction of the baseline (+0.10 for +10 %); absolute: the bound. */
  value: number;
  relative: boolean;
  /** What the run and its baseline must share to be compared ("same:mesh.version"). */
  same: Pin[];
}

/** What a rule can pin: `same:<pin>` after the rule. */
export const PINS = comparabilityPin.options;
export type Pin = ComparabilityPin;

export class RuleError extends Error {}

const RULE = /^\s*([a-z0-9.]+)\s*(>=|<=|>|<)\s*([+-])?(\d+(?:\.\d+)?)\s*(%|ms|s)?\s*$/i;
const PIN = /^same:(.*)$/i;

/** The pins after a rule ("same:mesh.version"), and the rule's text without them. */
function readPins(text: string): { rest: string; same: Pin[] } {
  const words = text.trim().split(/\s+/);
  const same: Pin[] = [];
  while (words.length > 1) {
    const m = PIN.exec(words[words.length - 1] as string);
    if (!m) break;
    const pin = (m[1] as string).toLowerCase();
    if (!(PINS as readonly string[]).includes(pin))
      throw new RuleError(
        `cannot pin "${m[1]}" in "${text}"; one of ${PINS.map((p) => `same:${p}`).join(', ')}`,
      );
    if (!same.includes(pin as Pin)) same.unshift(pin as Pin);
    words.pop();
  }
  return { rest: words.join(' '), same };
}

export function parseRule(text: string): Rule {
  const { rest, same } = readPins(text);
  const m = RULE.exec(rest);
  if (!m) {
    throw new RuleError(
      `cannot read the rule "${text}": expected <metric><op><value>[ same:mesh.version], e.g. 'p99>+10%', 'within1s<95%', 'p99>1500ms', 'p99>+10% same:mesh.version'`,
    );
  }
  const [, name, op, sign, number, unit] = m;
  const metric = (name as string).toLowerCase() as Metric;
  if (!METRICS.includes(metric)) {
    throw new RuleError(`unknown metric "${name}" in "${text}"; one of ${METRICS.join(', ')}`);
  }
  let value = Number(number);
  const relative = sign !== undefined;
  if (relative) {
    if (unit !== '%') throw new RuleError(`a relative rule needs a %: "${text}" (e.g. p99>+10%)`);
    value = (sign === '-' ? -value : value) / 100;
  } else if (metric === 'within1s') {
    if (unit !== undefined && unit !== '%')
      throw new RuleError(`within1s is a share: "${text}" (e.g. within1s<95%)`);
  } else if (metric === 'missing') {
    if (unit !== undefined)
      throw new RuleError(`missing is a count of proxies: "${text}" (e.g. missing>0)`);
  } else {
    if (unit === '%')
      throw new RuleError(
        `"${text}": a latency bound is in ms or s, or relative with a sign (p99>+10%)`,
      );
    if (unit === 's') value *= 1000;
  }
  if (same.length > 0 && !relative)
    throw new RuleError(
      `"${text}": only a rule relative to a baseline can pin what the baseline shares`,
    );
  return { text, metric, op: op as Rule['op'], value, relative, same };
}

export interface Verdict {
  rule: Rule;
  current: number | null;
  baseline: number | null;
  /** The bound the current value was held to. */
  bound: number | null;
  failed: boolean;
  reason: string;
}

const compare = (a: number, op: Rule['op'], b: number) =>
  op === '>' ? a > b : op === '<' ? a < b : op === '>=' ? a >= b : a <= b;

export function evaluate(rule: Rule, current: number | null, baseline: number | null): Verdict {
  if (current === null) {
    return { rule, current, baseline, bound: null, failed: true, reason: 'no value for this run' };
  }
  if (rule.relative && baseline === null) {
    return {
      rule,
      current,
      baseline,
      bound: null,
      failed: true,
      reason: 'no baseline to compare with',
    };
  }
  // Rounded to 1e-9 so that +10 % of 800 is 880, not 880.0000000000001.
  const bound = rule.relative
    ? Math.round((baseline as number) * (1 + rule.value) * 1e9) / 1e9
    : rule.value;
  const failed = compare(current, rule.op, bound);
  return {
    rule,
    current,
    baseline,
    bound,
    failed,
    reason: failed
      ? `${inUnits(rule.metric, current)} ${rule.op} ${inUnits(rule.metric, bound)}`
      : 'ok',
  };
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/**
 * A metric's value as a person reads it, in its unit: a latency as every page writes one
 * ("176.8 ms", "1.502 s"), the share within 1 s in %, a missing count as a count.
 */
function inUnits(metric: Metric, v: number): string {
  if (metric === 'within1s') return `${round(v)} %`;
  if (metric === 'missing') return String(round(v));
  return formatDurationMs(v);
}

/**
 * A data-plane rule, held at every load step: "load.p99>+10%" (relative to the baseline's
 * step), "load.p99>5ms" (absolute), "load.rps<-5%" (achieved rate), "load.errors>+1pp" (error
 * rate, percentage points above the baseline's) or "load.errors>1%" (absolute share).
 */
export interface LoadRule {
  text: string;
  metric: LoadMetric;
  op: Rule['op'];
  /** Relative: fraction of the baseline; pp: percentage points over it; absolute: the bound. */
  value: number;
  relative: boolean;
  /** load.errors>+1pp: the bound is the baseline plus `value` percentage points. */
  points: boolean;
  same: Pin[];
}

const LOAD_RULE =
  /^\s*(load\.[a-z0-9.]+)\s*(>=|<=|>|<)\s*([+-])?(\d+(?:\.\d+)?)\s*(%|pp|ms|s)?\s*$/i;

/** Whether a rule's text names a data-plane metric (load.*). */
export const isLoadRule = (text: string) => /^\s*load\./i.test(text);

/** The percentile a load metric names (load.p99.9 -> 99.9), or null for rps and errors. */
export function loadPercentileOf(metric: LoadMetric): number | null {
  const m = /^load\.p(\d+(?:\.\d+)?)$/.exec(metric);
  return m ? Number(m[1]) : null;
}

/** Lower latency and error rate are better; a higher achieved rate is. */
export const loadHigherIsBetter = (m: LoadMetric) => m === 'load.rps';

export function parseLoadRule(text: string): LoadRule {
  const { rest, same } = readPins(text);
  const m = LOAD_RULE.exec(rest);
  if (!m) {
    throw new RuleError(
      `cannot read the rule "${text}": expected load.<metric><op><value>[ same:mesh.version], e.g. 'load.p99>+10%', 'load.p99>5ms', 'load.rps<-5%', 'load.errors>+1pp'`,
    );
  }
  const [, name, op, sign, number, rawUnit] = m;
  const metric = (name as string).toLowerCase() as LoadMetric;
  if (!LOAD_METRICS.includes(metric))
    throw new RuleError(`unknown metric "${name}" in "${text}"; one of ${LOAD_METRICS.join(', ')}`);
  const unit = rawUnit?.toLowerCase();
  let value = Number(number);
  const relative = sign !== undefined;
  const signed = sign === '-' ? -value : value;
  let points = false;
  if (unit === 'pp') {
    if (metric !== 'load.errors' || !relative)
      throw new RuleError(
        `"${text}": percentage points (pp) are for the error rate against a baseline (load.errors>+1pp)`,
      );
    points = true;
    value = signed;
  } else if (relative) {
    if (unit !== '%')
      throw new RuleError(`a relative rule needs a % (or pp for errors): "${text}"`);
    value = signed / 100;
  } else if (metric === 'load.errors') {
    if (unit !== '%')
      throw new RuleError(`load.errors is a share of requests: "${text}" (e.g. load.errors>1%)`);
  } else if (metric === 'load.rps') {
    if (unit !== undefined)
      throw new RuleError(`load.rps is in requests a second: "${text}" (e.g. load.rps<900)`);
  } else {
    if (unit === '%')
      throw new RuleError(
        `"${text}": a latency bound is in ms or s, or relative with a sign (load.p99>+10%)`,
      );
    if (unit === 's') value *= 1000;
  }
  if (same.length > 0 && !relative)
    throw new RuleError(
      `"${text}": only a rule relative to a baseline can pin what the baseline shares`,
    );
  return { text, metric, op: op as Rule['op'], value, relative, points, same };
}

/** The bound a load step's value is held to: from the baseline's step, or the rule's own. */
export function loadBound(rule: LoadRule, baseline: number | null): number | null {
  if (!rule.relative) return rule.value;
  if (baseline === null) return null;
  const bound = rule.points ? baseline + rule.value : baseline * (1 + rule.value);
  return Math.round(bound * 1e9) / 1e9;
}

/** Whether a value breaks the rule's bound (the rule names when the build fails). */
export const breaks = (rule: Pick<LoadRule, 'op'>, value: number, bound: number) =>
  compare(value, rule.op, bound);
