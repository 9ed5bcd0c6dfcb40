// Whether a percentile moved beyond noise: the gate's fixed rule (p99>+10%) says how large a
// change matters; this says whether the runs show one. A rule on a percentile of raw
// observations regresses only when (1) the bootstrap interval of the percentile difference
// excludes zero, (2) the difference is larger than the rule's own minimum and (3) larger than
// the project's noise floor, learnt from runs of one configuration repeated (A/A runs).
import { formatDurationMs } from '@meshbench/schema';
import { type PercentileDifference, percentileDifference } from './quantile-bootstrap.ts';

export type SignificanceVerdict =
  | 'regressed'
  | 'improved'
  | 'no-significant-change'
  | 'not-comparable';

export interface Significance extends Partial<PercentileDifference> {
  verdict: SignificanceVerdict;
  /** The largest difference of this percentile between two repeats of one configuration. */
  noiseFloorMs: number | null;
  reason: string;
}

export interface SignificanceInput {
  percentile: number;
  /** Ascending, ms. */
  current: Float64Array | null;
  baseline: Float64Array | null;
  /** The smallest difference (ms) that the rule counts: e.g. 10 % of the baseline. */
  minEffectMs: number;
  noiseFloorMs: number | null;
  /** Why the runs cannot be compared, when they cannot (topology, sizes...). */
  notComparable?: string | undefined;
  /**
   * The largest clock error of either run's corrected latencies, where clock reports exist
   * (null or absent: no clock data): a difference smaller than it may be the clocks'.
   */
  clockErrorMs?: number | null;
}

/** A duration as every page writes one (@meshbench/schema's duration.ts): "176.8 ms", "1.502 s". */
export const ms = (v: number) => formatDurationMs(v);

export function gateSignificance(input: SignificanceInput, level = 0.95): Significance {
  const { noiseFloorMs } = input;
  if (input.notComparable) {
    return { verdict: 'not-comparable', noiseFloorMs, reason: input.notComparable };
  }
  if (!input.current?.length || !input.baseline?.length) {
    return {
      verdict: 'not-comparable',
      noiseFloorMs,
      reason: `no raw observations ${input.current?.length ? 'in the baseline' : 'in this run'}`,
    };
  }
  const d = percentileDifference(
    input.current,
    input.baseline,
    input.percentile,
    level,
  ) as PercentileDifference;
  if (input.clockErrorMs != null && input.clockErrorMs >= Math.abs(d.delta)) {
    return {
      ...d,
      verdict: 'not-comparable',
      noiseFloorMs,
      reason: `the clocks' error (± ${ms(input.clockErrorMs)}) is as large as the difference (${ms(d.delta)})`,
    };
  }
  return judgeDifference(d, input.minEffectMs, noiseFloorMs);
}

/**
 * The verdict on a percentile difference and its bootstrap interval: beyond noise only when
 * the interval excludes 0 and the difference is larger than the rule's minimum and the noise
 * floor (whichever is larger, named in the reason).
 */
export function judgeDifference(
  d: PercentileDifference,
  minEffectMs: number,
  noiseFloorMs: number | null,
): Significance {
  const interval = `${Math.round(d.level * 100)} % interval ${ms(d.low)} to ${ms(d.high)}`;
  const floor = Math.max(minEffectMs, noiseFloorMs ?? 0);
  const floorText =
    noiseFloorMs !== null && noiseFloorMs > minEffectMs
      ? `the noise floor (${ms(noiseFloorMs)})`
      : `the rule's minimum (${ms(minEffectMs)})`;
  if (d.low <= 0 && d.high >= 0) {
    return { ...d, verdict: 'no-significant-change', noiseFloorMs, reason: `${interval} holds 0` };
  }
  if (Math.abs(d.delta) <= floor) {
    return {
      ...d,
      verdict: 'no-significant-change',
      noiseFloorMs,
      reason: `${ms(d.delta)} is within ${floorText}`,
    };
  }
  return {
    ...d,
    verdict: d.delta > 0 ? 'regressed' : 'improved',
    noiseFloorMs,
    reason: `${d.delta > 0 ? '+' : ''}${ms(d.delta)}, ${interval}, beyond ${floorText}`,
  };
}

/**
 * The noise floor of a percentile from groups of repeated runs (each group: the values of
 * one configuration's runs): the largest spread within a group; null without a group of two.
 */
export function noiseFloor(groups: number[][]): number | null {
  let floor: number | null = null;
  for (const g of groups) {
    if (g.length < 2) continue;
    const spread = Math.max(...g) - Math.min(...g);
    floor = floor === null ? spread : Math.max(floor, spread);
  }
  return floor;
}

/** The percentile a metric names (p99.9 -> 99.9), or null for mean, max and shares. */
export function percentileOf(metric: string): number | null {
  const m = /^p(\d+(?:\.\d+)?)$/.exec(metric);
  return m ? Number(m[1]) : null;
}
