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
 * (the largest possible) is "only in the tail".
 *
 * Ranked by excess share, share - overall / total: the part of the tail a value covers beyond
 * what its size alone predicts (= share x (1 - 1 / lift)). Lift alone ties every value found
 * only in the tail at its maximum, however little of the tail it covers, so a rare incident
 * kind on 5 % of the tail would lead a node holding 90 % of it; excess share leads with the
 * value that covers most of the tail with high lift, and gives nothing to a value as common
 * in the tail as overall (lift 1), however large. Then by lift, then by tail count, then by
 * name.
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
      // Compared exactly, in integers: excess share x tailCount x total = inTail x total -
      // overall x tailCount; lift cross-multiplied (tailCount and total are common), so
      // values found only in the tail tie whatever floating point makes of them.
      .sort(
        (a, b) =>
          b.inTail * total - b.overall * tailCount - (a.inTail * total - a.overall * tailCount) ||
          b.inTail * a.overall - a.inTail * b.overall ||
          b.inTail - a.inTail ||
          compare(a.attribute, b.attribute) ||
          compare(a.value, b.value),
      )
      .slice(0, limit)
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
