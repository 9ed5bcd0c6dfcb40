// Which attribute values set a change's tail apart: lift and share of each value the tail
// proxies carry, ranked. Pure: the caller counts the values (exactly) and hands them here.
import {
  ATTRIBUTION_MIN_TAIL_COUNT,
  ATTRIBUTION_MIN_TAIL_SHARE,
  type AttributeValue,
} from '@meshbench/schema';

/** How many proxies carry one attribute value: in the tail, and overall (tail included). */
export interface AttributeCount {
  attribute: string;
  value: string;
  inTail: number;
  overall: number;
}

/**
 * Values carried by fewer tail proxies than this are not ranked: a value on one or two slow
 * proxies out of many has a high lift by chance alone.
 */
export function minTailCount(tailCount: number): number {
  return Math.max(ATTRIBUTION_MIN_TAIL_COUNT, Math.ceil(tailCount * ATTRIBUTION_MIN_TAIL_SHARE));
}

/**
 * The `limit` values that set the tail apart most. share = inTail / tailCount; lift = share
 * / (overall / total), so 1 is "as common in the tail as everywhere" and total / tailCount
 * (the largest possible) is "only in the tail". Ranked by lift, then by tail count (among
 * values found only in the tail, the one that covers most of it first), then by name.
 */
export function rankAttribution(
  counts: readonly AttributeCount[],
  tailCount: number,
  total: number,
  limit: number,
): AttributeValue[] {
  if (tailCount === 0 || total === 0) return [];
  const floor = minTailCount(tailCount);
  return (
    counts
      .filter((c) => c.inTail >= floor && c.overall > 0)
      .map((c) => {
        const share = c.inTail / tailCount;
        return { ...c, share, lift: share / (c.overall / total) };
      })
      // Lift compared exactly (inTail / overall, cross-multiplied: tailCount and total are
      // common), so values found only in the tail tie whatever floating point makes of them.
      .sort(
        (a, b) =>
          b.inTail * a.overall - a.inTail * b.overall ||
          b.inTail - a.inTail ||
          compare(a.attribute, b.attribute) ||
          compare(a.value, b.value),
      )
      .slice(0, limit)
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
