// Gate rules: "p99>+10%" (relative to the baseline), "within1s<95%" (absolute share),
// "p99>1500ms" (absolute latency). A rule names when the build fails. A rule may pin what
// the baseline must share with the run: "p99>+10% same:mesh.version" holds a run against a
// baseline of another mesh version as not comparable instead of testing it.
import { type ComparabilityPin, comparabilityPin, METRICS, type Metric } from '@meshbench/schema';

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
    reason: failed ? `${round(current)} ${rule.op} ${round(bound)}` : 'ok',
  };
}

const round = (v: number) => Math.round(v * 1000) / 1000;
