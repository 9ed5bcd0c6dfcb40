// The tail explained in words: the attribute value most over-represented among the slowest
// proxies, as a sentence, and the rows of its table. Pure: no DOM.
import {
  ATTRIBUTION_STANDS_OUT_LIFT,
  type AttributeValue,
  type TailAttribution,
} from '@meshbench/schema';
import { formatCount, formatDuration } from './format.ts';

/** "slower than P99 (251 s)", "slower than 1 s": the cut the attribution was taken at. */
export function cutPhrase(a: Pick<TailAttribution, 'thresholdMs' | 'thresholdP'>): string {
  if (a.thresholdP !== null) {
    return `slower than P${a.thresholdP}${a.thresholdMs === null ? '' : ` (${formatDuration(a.thresholdMs)})`}`;
  }
  return `slower than ${formatDuration(a.thresholdMs ?? 0)}`;
}

/** "on node n-0007", "in az us-east-1a", "with cause reconnect"... */
export function valuePhrase(v: Pick<AttributeValue, 'attribute' | 'value'>): string {
  switch (v.attribute) {
    case 'node':
      return `are on node ${v.value}`;
    case 'az':
      return `are in az ${v.value}`;
    case 'cause':
      return `report cause ${v.value}`;
    case 'incident':
      return `had a ${v.value} incident`;
    default:
      return v.attribute.startsWith('incident.')
        ? `had an incident with ${v.attribute.slice('incident.'.length)} ${v.value}`
        : `have ${v.attribute} = ${v.value}`;
  }
}

/** 46 -> "46", 2.94 -> "2.9", 1000/3 -> "333". */
export function formatLift(lift: number): string {
  return lift >= 10 ? formatCount(Math.round(lift)) : lift.toFixed(1);
}

const percent = (fraction: number) => `${Math.round(fraction * 100)} %`;

/**
 * The value the sentence names: the first, in the API's order (excess share), that is
 * over-represented enough to be named; a value covering much of the tail at a lift under 2
 * is about as common there as anywhere, and is passed over.
 */
export function leadValue(a: Pick<TailAttribution, 'values'>): AttributeValue | undefined {
  return a.values.find((v) => v.lift >= ATTRIBUTION_STANDS_OUT_LIFT);
}

/** Whether some value is over-represented enough to be named. */
export function standsOut(a: Pick<TailAttribution, 'values'>): boolean {
  return leadValue(a) !== undefined;
}

/**
 * The lead sentence: "46 of the 50 slowest proxies (92 %) are on node n-0007: 46 ×
 * over-represented", or, when no value reaches a lift of 2, that nothing stands out.
 */
export function attributionSentence(a: TailAttribution): string {
  if (a.tailCount === 0) return 'No proxy is in the tail, so there is nothing to explain.';
  const slowest = `${formatCount(a.tailCount)} slowest ${a.tailCount === 1 ? 'proxy' : 'proxies'}`;
  const top = leadValue(a);
  if (top === undefined) {
    return `Nothing stands out: no node, cause or attribute is even ${ATTRIBUTION_STANDS_OUT_LIFT} × as common among the ${slowest} as among all ${formatCount(a.total)}.`;
  }
  const who =
    top.inTail === a.tailCount
      ? `All ${slowest}`
      : `${formatCount(top.inTail)} of the ${slowest} (${percent(top.share)})`;
  return `${who} ${valuePhrase(top)}: ${formatLift(top.lift)} × over-represented (${formatCount(top.overall)} of all ${formatCount(a.total)}).`;
}
